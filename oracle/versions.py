"""ferry.oracle.versions: the versions ferry --version lists for a bug report, without importing any
library or frontend (importing torch, tensorflow, openvino and tvm takes seconds, and a broken one
would take ferry --version down with it): each installed distribution's own metadata.

The libraries are the sources ferry harvests and wraps and what they run on (tensorflow, which
keras and the TensorFlow frontends run on), as their templates declare them (VERSIONS,
ferry/templates/registry.py's libraries()); the frontends are the adapters' declarations
(registry.frontends(): ferry's and the user's, FERRY_ADAPTERS), each by its PACKAGE. What is not
installed says so; nothing here raises.
"""

from importlib import metadata


def _libraries():
    """The distributions the templates declare, each once, in the registry's order."""
    from ferry.templates import registry

    found = []
    for d in registry.libraries():
        found += [name for name in d["VERSIONS"] if name not in found]
    return found


def _distributions():
    try:
        return metadata.packages_distributions()
    except Exception:  # a broken distribution's metadata: each package is then looked up by its name
        return {}


def _version(package, dists):
    """'DIST VERSION' of the distribution that provides import package (several: the first that has a
    version), or None."""
    for name in dists.get(package, []) + [package]:
        try:
            return f"{name} {metadata.version(name)}"
        except Exception:
            continue
    return None


def text():
    """Lines of 'library NAME: DIST VERSION' and 'frontend NAME: DIST VERSION' (or 'not installed')."""
    dists = _distributions()
    lines = []
    try:
        libraries = _libraries()
    except Exception as e:  # a template that cannot be read is ferry wrap's to refuse, not --version's
        return f"libraries: cannot be listed: {e}\n"
    for name in libraries:
        found = _version(name, dists)
        lines.append(f"library {name}: {found or 'not installed'}")
    try:
        from ferry.oracle import registry

        frontends = registry.frontends()
    except Exception as e:  # an adapter that cannot be read is ferry run's to refuse, not --version's
        return "".join(line + "\n" for line in lines) + f"frontends: cannot be listed: {e}\n"
    for d in frontends:
        package = d.get("PACKAGE")
        found = _version(package, dists) if package else None
        where = "" if d["path"].startswith(registry._ADAPTERS) else f" (adapter {d['path']})"
        lines.append(f"frontend {d['NAME']}: {found or 'not installed' if package else 'its PACKAGE is computed'}"
                     f"{where}")
    return "".join(line + "\n" for line in lines)
