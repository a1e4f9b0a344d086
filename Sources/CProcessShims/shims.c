#define _GNU_SOURCE
#include <malloc.h>
#include <spawn.h>
#include <sys/wait.h>
#include "CProcessShims.h"

int CProcessShims_addCloseFrom(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int CProcessShims_addChangeDirectory(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int CProcessShims_exitStatus(int waitStatus) {
    if (WIFEXITED(waitStatus)) return WEXITSTATUS(waitStatus);
    if (WIFSIGNALED(waitStatus)) return 128 + WTERMSIG(waitStatus);
    return -1;
}

int CProcessShims_limitMallocArenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}
