/*
 * A stand-in for Windows' bcryptprimitives.dll, which Debian's Wine 8 lacks: Rust's standard library
 * (since 1.78), and so the keychain addon (@napi-rs/keyring), imports ProcessPrng from it, and the addon
 * fails to load with "Module not found" without it. Real Windows (10 and later) has the DLL; this file is
 * for the Windows lane under Wine only (test/windows/lane.mjs builds it with mingw into the prefix's
 * system32, where Node's addon search path looks).
 *
 * ProcessPrng fills the buffer with random bytes and always returns TRUE; advapi32's RtlGenRandom
 * (exported as SystemFunction036) does the same from the system's generator.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    len -= chunk;
  }
  return TRUE;
}
