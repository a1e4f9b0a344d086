#include "CICU.h"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utypes.h>

_Static_assert(sizeof(UChar) == sizeof(uint16_t), "ICU's UChar is a UTF-16 unit");
_Static_assert(U_BUFFER_OVERFLOW_ERROR == CICU_BUFFER_OVERFLOW, "U_BUFFER_OVERFLOW_ERROR");

int32_t CICU_foldCase(uint16_t *destination, int32_t capacity, const uint16_t *source, int32_t length,
                      int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    int32_t result = u_strFoldCase((UChar *)destination, capacity, (const UChar *)source, length,
                                   U_FOLD_CASE_DEFAULT, &code);
    *status = (int32_t)code;
    return result;
}

int32_t CICU_normalize(int32_t compose, uint16_t *destination, int32_t capacity, const uint16_t *source,
                       int32_t length, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    const UNormalizer2 *normalizer = compose ? unorm2_getNFCInstance(&code) : unorm2_getNFDInstance(&code);
    int32_t result = 0;
    if (U_SUCCESS(code)) {
        result = unorm2_normalize(normalizer, (const UChar *)source, length, (UChar *)destination, capacity, &code);
    }
    *status = (int32_t)code;
    return result;
}

const char *CICU_unicodeVersion(void) { return U_UNICODE_VERSION; }
