// What the shim's C files share beyond the public header: libcurl's entry points, reached through
// ccurl_shim.c (which owns the dlopen'd table), with the exact argument types libcurl reads.
#ifndef CCURL_PRIVATE_H
#define CCURL_PRIVATE_H

#include "ccurl_abi.h"

/// The loaded libcurl's version data; NULL when it is not loaded.
cc_version_info *ccurl_private_version_info(void);
/// The easy handle of a shim transfer.
void *ccurl_private_easy(void *xfer);
int ccurl_private_set_long(void *easy, int option, long value);
int ccurl_private_set_pointer(void *easy, int option, const void *value);
/// A bare easy handle (for reading libcurl's defaults); NULL when libcurl is not loaded.
void *ccurl_private_easy_new(void);
void ccurl_private_easy_free(void *easy);
int ccurl_private_get_long(void *easy, int info, long *value);
int ccurl_private_get_string(void *easy, int info, const char **value);

#endif
