#ifndef SLEEPLEDGER_COPENSSL_SHIM_H
#define SLEEPLEDGER_COPENSSL_SHIM_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#endif
