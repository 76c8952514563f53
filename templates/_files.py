"""ferry.templates._files: writing inside ferry's own directories without following links.

A wrap directory (WRAP/tests/XX/ID), a store's side directory (STORE.outputs/LABEL/ID) and what show
and report write (DIR/test_OP_ID) may come from someone else, unpacked from an archive with links
planted in them (tests/6e -> /elsewhere, meta.json -> a victim). The directory the user named is the
user's, and a link there is followed; what ferry makes or finds inside it is ferry's own, and nothing
written there follows a link (lib/fsutil.h fs_dir_beneath and fs_write_beneath do the same in C):

    open_dir(path, own)   walks the last own components of path with O_NOFOLLOW, making them where
                          missing, and returns a descriptor of the directory
    create(path)          opens a file to write (created or truncated) with O_NOFOLLOW relative to its
                          directory: a link at path is refused, never followed
    replace(path, data)   writes path whole through a temporary file beside it (O_EXCL|O_NOFOLLOW),
                          renamed over it
    fresh_dir(path)       path as a new, empty directory (for a tree another library writes by path,
                          a SavedModel): what was there removed, a link refused
    plain(name)           name, where it is a plain file name (meta.json's, which are data)

A refusal is an OSError whose message begins "ferry: " and names the path (the driver takes such a
message as ferry's own failure, never the frontend's).
"""

import errno
import os
import shutil
import stat

_DIR = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _link(path, what="follows no link inside a directory of its own"):
    return OSError(errno.ELOOP, f"ferry: '{path}' is a symbolic link: ferry {what} (remove it)")


def _refused(dirfd, name, path, error):
    """The error for a component of ferry's own that open(O_NOFOLLOW) refused."""
    if _is_link(dirfd, name):
        return _link(path)
    if isinstance(error, NotADirectoryError):
        return OSError(errno.ENOTDIR, f"ferry: '{path}' is not a directory")
    return error


def _is_link(dirfd, name):
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def open_dir(path, own, make=True):
    """A descriptor of the directory path (the caller closes it), whose last own components are
    ferry's: each made where missing (with make) and opened with O_NOFOLLOW relative to the one
    before, so a link there raises an OSError naming it; the part before them is the user's,
    followed where it is a link and made where missing. "." and ".." are no components of ferry's."""
    path = os.fspath(path)
    parts = [p for p in path.split("/") if p]
    mine = parts[len(parts) - own:] if own else []
    base = "/".join(parts[:len(parts) - len(mine)])
    base = ("/" + base if path.startswith("/") else base) or ("/" if path.startswith("/") else ".")
    if make:
        os.makedirs(base, exist_ok=True)
    fd = os.open(base, _DIR)
    shown = base
    try:
        for name in mine:
            shown = os.path.join(shown, name)
            if name in (".", ".."):
                raise OSError(errno.EINVAL, f"ferry: '{shown}': ferry names no directory of its own '{name}'")
            if make:
                try:
                    os.mkdir(name, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                next_fd = os.open(name, _DIR | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as e:
                raise _refused(fd, name, shown, e) from None
            os.close(fd)
            fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd


def plain(name):
    """name, where it is a plain file name (a test directory's meta.json names its files: data, which
    must not lead a write or a copy out of the directory); else an OSError naming it."""
    if not isinstance(name, str) or not name or "/" in name or "\0" in name or name in (".", ".."):
        raise OSError(errno.EINVAL, f"ferry: {name!r} is no file name of a test directory")
    return name


def _parent(path):
    head, name = os.path.split(os.fspath(path))
    if not name or name in (".", ".."):
        raise OSError(errno.EINVAL, f"ferry: '{path}': not a file name")
    return os.open(head or ".", _DIR), name


def create(path, mode="wb"):
    """The file path opened to write (mode "wb" or "w"), created or truncated, with O_NOFOLLOW
    relative to its directory: a link at path raises an OSError naming it, and nothing is written
    through it."""
    dirfd, name = _parent(path)
    try:
        fd = os.open(name, _WRITE, 0o666, dir_fd=dirfd)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise _link(path, "writes no file through a link inside a directory of its own") from None
        raise
    finally:
        os.close(dirfd)
    return os.fdopen(fd, mode)


def replace(path, data):
    """Write data (bytes or str) as the file path, whole: through a temporary file created beside it
    O_EXCL|O_NOFOLLOW, renamed over path (which replaces what is there, a link included, and follows
    nothing), so a reader sees the old file or the new one."""
    dirfd, name = _parent(path)
    try:
        if _is_link(dirfd, name):
            raise _link(path, "writes no file through a link inside a directory of its own")
        tmp = f"{name}.{os.getpid()}.tmp"
        try:
            os.unlink(tmp, dir_fd=dirfd)  # ferry's own temporary name: a leftover (or a link) goes
        except FileNotFoundError:
            pass
        fd = os.open(tmp, _WRITE | os.O_EXCL, 0o666, dir_fd=dirfd)
        try:
            with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as f:
                f.write(data)
            os.replace(tmp, name, src_dir_fd=dirfd, dst_dir_fd=dirfd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dirfd)
            except OSError:
                pass
            raise
    finally:
        os.close(dirfd)


def fresh_dir(path):
    """path as a new, empty directory of ferry's: a directory there is removed first (its links as
    themselves), a link raises an OSError naming it."""
    dirfd, name = _parent(path)
    try:
        try:
            st = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None:
            if stat.S_ISLNK(st.st_mode):
                raise _link(path)
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(path)
            else:
                os.unlink(name, dir_fd=dirfd)
        os.mkdir(name, dir_fd=dirfd)
    finally:
        os.close(dirfd)
    return path
