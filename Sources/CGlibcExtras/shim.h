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

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

// Sets the nice value of the calling thread only (Linux gives each thread its own; glibc's
// setpriority with PRIO_PROCESS and a thread id does it, but Swift cannot call the variadic
// syscall(2) that returns the thread id). Returns 0, or -1 with errno set.
static inline int fedsearch_set_thread_nice(int nice_value) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice_value);
}
