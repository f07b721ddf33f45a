// pthread_setname_np and gettid are GNU extensions, which Swift's Glibc module does not show.
#define _GNU_SOURCE
#include "ccurl_shim.h"

#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int ccurl_name_current_thread(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = '\0';
    return pthread_setname_np(pthread_self(), truncated);
}

int ccurl_current_thread_id(void) { return (int)syscall(SYS_gettid); }
