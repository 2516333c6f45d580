// Child for the signal-forwarding test (cli_signals.sh):
//   signal_child READY_FILE
// installs handlers for the signals softgpu run forwards (cli_signals.sh sends them), writes its pid to READY_FILE, sleeps; on a signal
// writes "got N" to stdout and dies of that signal (default action).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <initializer_list>

namespace {
void on_signal(int sig) {
  char buf[16] = {'g', 'o', 't', ' '};
  int n = 4;
  char digits[8];
  int d = 0;
  for (int v = sig; v; v /= 10) digits[d++] = char('0' + v % 10);
  while (d) buf[n++] = digits[--d];
  buf[n++] = '\n';
  (void)!write(1, buf, size_t(n));
  signal(sig, SIG_DFL);
  raise(sig);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGPIPE})
    signal(s, on_signal);
  if (FILE* f = std::fopen(argv[1], "w")) {
    std::fprintf(f, "%d\n", int(getpid()));
    std::fclose(f);
  }
  for (int i = 0; i < 600; ++i) sleep(1);  // killed long before
  return 3;
}
