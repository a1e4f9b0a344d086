#ifndef SLEEPLEDGER_CPROCESSSHIMS_H
#define SLEEPLEDGER_CPROCESSSHIMS_H
#include <spawn.h>

/* glibc's posix_spawn extensions, declared only under _GNU_SOURCE (which Swift's Glibc
   module does not set), and the wait-status macros, which Swift cannot import. The
   definitions are in shims.c, compiled with _GNU_SOURCE (swift-nio's CNIOLinux does the
   same). */

/* posix_spawn_file_actions_addclosefrom_np (glibc 2.34): the child closes every
   descriptor from `lowest` up. Returns 0 or an error number. */
int CProcessShims_addCloseFrom(posix_spawn_file_actions_t *actions, int lowest);

/* posix_spawn_file_actions_addchdir_np (glibc 2.29): the child starts in `path`.
   Returns 0 or an error number. */
int CProcessShims_addChangeDirectory(posix_spawn_file_actions_t *actions, const char *path);

/* A waitpid status as a shell reports it: the exit status for a normal exit, 128 plus
   the signal number for a child killed by a signal, -1 for anything else (stopped). */
int CProcessShims_exitStatus(int waitStatus);

/* mallopt(M_ARENA_MAX, count): at most `count` glibc malloc arenas for the process's
   threads. Returns 1 on success, 0 otherwise. */
int CProcessShims_limitMallocArenas(int count);

#endif
