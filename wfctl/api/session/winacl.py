"""Owner-only files on Windows: an explicit, protected ACL set through the platform's API.

Windows has no owner/group/other bits (wfctl.fsutil's modes are POSIX only): a file is protected by its
ACL, which it inherits from its folder. wfctl's folders are under the user's profile (%APPDATA%,
%LOCALAPPDATA%: wfctl.dirs), whose inherited ACL already leaves out other users, but an administrator's
policy, a roaming profile or a folder moved elsewhere may not. So a secret file (the token file) and its
folder get an explicit ACL: one entry, full control for the file's owner (the user who wrote it; SDDL
`O:` owner rights, `OW`), protected from inheriting any other (`D:P`). It is set with advapi32's
`SetNamedSecurityInfoW` through ctypes (no pywin32 needed) and read back with `GetNamedSecurityInfoW`, so
`auth status` says what the file really has.

Only on Windows (`ON_WINDOWS`: `sys.platform == "win32"`); the API is an object (`WindowsApi`, kept in
`_API`) so that the tests, which cannot run Windows, emulate it (tests/auth/test_windows_files.py says so).
"""

from __future__ import annotations

import sys
from typing import Any, Protocol

#: Full access for the owner, nothing inherited: a protected DACL of one ACE (OICI: a folder's files too).
OWNER_ONLY_FILE = "D:P(A;;FA;;;OW)"
OWNER_ONLY_FOLDER = "D:P(A;OICI;FA;;;OW)"
ON_WINDOWS = sys.platform == "win32"


class AclApi(Protocol):
    def set_dacl(self, path: str, sddl: str) -> None: ...

    def get_dacl(self, path: str) -> str: ...


def restrict(path: str, *, folder: bool = False, api: AclApi | None = None) -> bool:
    """Give `path` the owner-only ACL (on Windows; elsewhere nothing: POSIX modes do it). True when set.
    OSError when the API refuses (the caller decides: a token file not protected is not written)."""
    if not ON_WINDOWS and api is None:
        return False
    (api or _api()).set_dacl(path, OWNER_ONLY_FOLDER if folder else OWNER_ONLY_FILE)
    return True


def protection(path: str, *, api: AclApi | None = None) -> str | None:
    """How `path` is protected, in a person's words ("owner-only ACL"), or None off Windows or when it
    cannot be read."""
    if not ON_WINDOWS and api is None:
        return None
    try:
        dacl = (api or _api()).get_dacl(path)
    except OSError:
        return None
    if dacl in (OWNER_ONLY_FILE, OWNER_ONLY_FOLDER):
        return "owner-only ACL"
    return f"ACL {dacl}: not owner-only"


_API: AclApi | None = None


def _api() -> AclApi:
    global _API
    if _API is None:
        _API = WindowsApi()
    return _API


class WindowsApi:
    """advapi32 through ctypes: an SDDL string to a DACL set on a path, and a path's DACL as SDDL."""

    SE_FILE_OBJECT = 1
    DACL_SECURITY_INFORMATION = 0x4
    PROTECTED_DACL_SECURITY_INFORMATION = 0x80000000
    SDDL_REVISION_1 = 1

    def __init__(self) -> None:
        import ctypes

        self._ctypes = ctypes
        self._advapi32: Any = ctypes.WinDLL("advapi32", use_last_error=True)  # type: ignore[attr-defined]
        self._kernel32: Any = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]

    def set_dacl(self, path: str, sddl: str) -> None:
        ctypes = self._ctypes
        descriptor = ctypes.c_void_p()
        if not self._advapi32.ConvertStringSecurityDescriptorToSecurityDescriptorW(
                sddl, self.SDDL_REVISION_1, ctypes.byref(descriptor), None):
            raise OSError(ctypes.get_last_error(), "cannot read the ACL to set")
        try:
            present, defaulted, dacl = ctypes.c_int(), ctypes.c_int(), ctypes.c_void_p()
            self._advapi32.GetSecurityDescriptorDacl(descriptor, ctypes.byref(present), ctypes.byref(dacl),
                                                     ctypes.byref(defaulted))
            status = self._advapi32.SetNamedSecurityInfoW(
                path, self.SE_FILE_OBJECT, self.DACL_SECURITY_INFORMATION | self.PROTECTED_DACL_SECURITY_INFORMATION,
                None, None, dacl, None)
            if status != 0:
                raise OSError(status, f"cannot set the owner-only ACL of {path}")
        finally:
            self._kernel32.LocalFree(descriptor)

    def get_dacl(self, path: str) -> str:
        ctypes = self._ctypes
        descriptor, dacl, text = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_wchar_p()
        status = self._advapi32.GetNamedSecurityInfoW(path, self.SE_FILE_OBJECT, self.DACL_SECURITY_INFORMATION,
                                                      None, None, ctypes.byref(dacl), None, ctypes.byref(descriptor))
        if status != 0:
            raise OSError(status, f"cannot read the ACL of {path}")
        try:
            if not self._advapi32.ConvertSecurityDescriptorToStringSecurityDescriptorW(
                    descriptor, self.SDDL_REVISION_1, self.DACL_SECURITY_INFORMATION, ctypes.byref(text), None):
                raise OSError(ctypes.get_last_error(), "cannot write the ACL as text")
            value = str(text.value or "")
            self._kernel32.LocalFree(text)
            return value
        finally:
            self._kernel32.LocalFree(descriptor)
