#ifndef SLEEPLEDGER_CICU_H
#define SLEEPLEDGER_CICU_H
#include <stdint.h>

/* The few ICU calls SleepLedger needs (libicu-dev), behind plain C types. ICU renames
   every function with its major version (u_strFoldCase is a macro for u_strFoldCase_72)
   and Foundation on Linux carries its own ICU whose headers declare the same type names,
   so the ICU headers are included only in icu.c and never seen by Swift.

   Each transformation reads `length` UTF-16 units from `source`, writes at most
   `capacity` into `destination` and returns the length of the whole result; `*status`
   receives ICU's UErrorCode: 0 on success, negative for a warning, positive for an
   error (CICU_BUFFER_OVERFLOW when `capacity` was too small: call again with the length
   returned). */

/* UErrorCode U_BUFFER_OVERFLOW_ERROR. */
#define CICU_BUFFER_OVERFLOW 15

/* Full Unicode case folding (CaseFolding.txt statuses C and F, without the Turkic T
   mappings: U_FOLD_CASE_DEFAULT). */
int32_t CICU_foldCase(uint16_t *destination, int32_t capacity, const uint16_t *source, int32_t length,
                      int32_t *status);

/* Canonical composition (NFC) when `compose` is non-zero, else canonical decomposition
   (NFD). */
int32_t CICU_normalize(int32_t compose, uint16_t *destination, int32_t capacity, const uint16_t *source,
                       int32_t length, int32_t *status);

/* The Unicode version of ICU's data, such as "15.0". */
const char *CICU_unicodeVersion(void);
#endif
