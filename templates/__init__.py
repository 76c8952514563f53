"""ferry.templates: one template per source library (onnx, torch, keras): a record becomes a
single-operator model, its inputs and the reference outputs the library computes, and reproducers.
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


def environment(exc):
    """"<Type>: <message>" of the OSError behind exc (itself, or what it was raised from) whose errno
    is the environment's, or None when exc is about the instance (or unknown). An exception merely
    raised while another was handled (its __context__) is not taken for it: a library that tried a
    cache on a read-only disk and then rejected the instance rejected the instance."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _ENVIRONMENT:
            return f"{type(exc).__name__}: {exc}"
        exc = exc.__cause__
    return None
