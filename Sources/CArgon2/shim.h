#ifndef SLEEPLEDGER_CARGON2_SHIM_H
#define SLEEPLEDGER_CARGON2_SHIM_H
/* libargon2, the reference implementation of Argon2 (Debian libargon2-dev): password
   hashes for sign-in (LedgerCrypto.Argon2id). */
#include <argon2.h>
#endif
