#ifndef SLEEPLEDGER_COPENSSL_SHIM_H
#define SLEEPLEDGER_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#endif
