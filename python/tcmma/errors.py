"""Exceptions: every failed libtcmma call raises one carrying its status and the
library's message (which names the bad value and what was expected)."""


class TcmmaError(Exception):
    """A libtcmma call failed: .status (tcmma.Status) and .message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message

    def __str__(self):
        name = getattr(self.status, "label", None)
        return "%s (%s)" % (self.message, name) if name else self.message


class InvalidError(TcmmaError, ValueError):
    """TCMMA_INVALID: an argument out of range or malformed."""


class UnavailableError(TcmmaError, RuntimeError):
    """TCMMA_UNAVAILABLE: NVRTC or the CUDA driver could not be loaded."""


class CompileError(TcmmaError):
    """TCMMA_COMPILE: NVRTC or ptxas rejected the source; .program has the log."""

    def __init__(self, status, message, program=None):
        super().__init__(status, message)
        self.program = program

    @property
    def log(self):
        return self.program.log if self.program is not None else ""


class Declined(TcmmaError):
    """The plan declined the call: .reason (tcmma.Decline or tcmma.GemmDecline,
    whose .rule is the rule sentence) and .message naming the value."""

    def __init__(self, status, message, reason=None, plan=None):
        super().__init__(status, message)
        self.reason = reason
        self.plan = plan


_BY_STATUS = {"INVALID": InvalidError, "UNAVAILABLE": UnavailableError,
              "COMPILE": CompileError, "DECLINED": Declined}


def error_class(status_name):
    return _BY_STATUS.get(status_name, TcmmaError)
