// Runs a piece of a test in a child process (POSIX fork), for claims a crash or a hang would otherwise take the
// whole test executable down with: "this returns an error instead of dividing by zero", "this stops instead of
// waiting forever", "this precondition aborts instead of reading out of bounds".
#ifndef PROVPOL_TESTS_CHILD_PROCESS_HPP
#define PROVPOL_TESTS_CHILD_PROCESS_HPP

#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <initializer_list>

namespace child {

/// How the child ended: its exit status, or the signal that killed it (SIGALRM: it ran past its time limit).
struct outcome {
    bool exited = false;
    int status = -1;  ///< the exit status when exited
    int signal = 0;   ///< the signal otherwise
};

/// Runs f() in a child with a time limit of `seconds`; the child exits with f()'s int result. Its stderr is
/// silenced (an expected assertion message would clutter the test log).
template <class F>
outcome run(F f, unsigned seconds = 20) {
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        // The test framework's crash handlers would report the child's expected signal as the parent's failure.
        for (int sig : {SIGABRT, SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGALRM}) std::signal(sig, SIG_DFL);
        if (std::freopen("/dev/null", "w", stderr) == nullptr || std::freopen("/dev/null", "w", stdout) == nullptr)
            _exit(99);
        alarm(seconds);
        _exit(f());
    }
    int st = 0;
    outcome o;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return o;
    if (WIFEXITED(st)) o.exited = true, o.status = WEXITSTATUS(st);
    if (WIFSIGNALED(st)) o.signal = WTERMSIG(st);
    return o;
}

}  // namespace child

#endif  // PROVPOL_TESTS_CHILD_PROCESS_HPP
