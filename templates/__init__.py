"""ferry.templates: one template per source library (each declares its library, the registry's
entry: ferry/templates/registry.py): a record becomes a single-operator model, its inputs and the
reference outputs the library computes, and reproducers.
A template imports ferry.extract.values, never the driver nor an adapter.

Only the library's verdict on an instance makes it invalid. A template that fails because the
machine did (a full disk, an I/O error, a read-only file system) says nothing of the instance:
environment() tells such a failure apart, the template lets it through, and the worker answers
"error", so that ferry wrap and ferry vary record nothing for the instance, stop, and try it again
when run again."""

import errno

# What the machine, not the instance, failed at: space (blocks, quota, a file size limit), the
# device, a file system mounted read-only, descriptors and memory of the system.
_ENVIRONMENT = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS, errno.ENFILE,
                          errno.EMFILE, errno.ENOMEM})


def _causes(exc):
    """exc and what it was raised from, in turn (not what it was merely raised while handling: its
    __context__)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__


def refusal(exc):
    """Whether exc is, or was raised from, ferry's own refusal to write through a link planted in a
    directory of its own (ferry.templates._files): the directory is at fault, not the instance nor
    the machine, and the wrap stops as on bad input."""
    return any(isinstance(c, OSError) and c.errno == errno.ELOOP and str(c.strerror).startswith("ferry: ")
               for c in _causes(exc))


def environment(exc):
    """"<Type>: <message>" of the OSError behind exc (itself, or what it was raised from) whose errno
    is the environment's, or that is ferry's refusal of a planted link (refusal()), or None when exc
    is about the instance (or unknown). An exception merely raised while another was handled (its
    __context__) is not taken for it: a library that tried a cache on a read-only disk and then
    rejected the instance rejected the instance."""
    for c in _causes(exc):
        if isinstance(c, OSError) and (c.errno in _ENVIRONMENT or refusal(c)):
            return c.strerror[len("ferry: "):] if refusal(c) else f"{type(c).__name__}: {c}"
    return None
