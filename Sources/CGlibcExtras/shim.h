// glibc declarations that Swift's Glibc module leaves out.
#include <sys/types.h>
#include <malloc.h>

// Linux's `struct ucred` (SO_PEERCRED) is only declared under _GNU_SOURCE, which Swift's
// Glibc module does not set; this is the same layout under a name of our own.
struct fedsearch_peer_credentials {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};
