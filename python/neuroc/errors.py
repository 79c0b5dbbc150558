"""The exceptions of the neuroc package."""


class NeurocError(Exception):
    """Base class: every error this package raises is one."""


class OutputError(NeurocError, ValueError):
    """An output folder or one of its files is missing, unreadable or not what the manifest
    says; the message names the file and what is wrong."""


class CompileError(NeurocError):
    """neuroc refused the model or failed to build it; the message is neuroc's (stderr)."""


class RunError(NeurocError):
    """The simulator exited with a non-zero status; the message is its error output.
    `status` is the exit status, `out_dir` the output folder (its manifest, where one was
    written, says what ran)."""

    def __init__(self, message, status=None, out_dir=None):
        NeurocError.__init__(self, message)
        self.status = status
        self.out_dir = out_dir
