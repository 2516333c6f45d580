# Forward progress (issue 7): independent thread scheduling within a warp
# (spin locks, lane flags), co-resident CTAs spinning on each other (one and
# two host threads), partial barriers, the watchdog across many short CTAs,
# the progress line. Results are checked against CPU values in the program.
softgpu_cuda_program(progress SOURCES progress/progress.cu ARCH -arch=sm_80)
foreach(m spinlock spinlock_loop lock_reduce lane_flag coresident one_wave barrier_exit barrier_spin barrier_diverge)
  foreach(t 1 2)
    cuda_test(progress_${m}_t${t} progress ARGS ${m} RUN_OPTS "--threads@@${t}@@--watchdog@@120"
              STDOUT_REGEX "PASS progress ${m}" TIMEOUT 180)
  endforeach()
endforeach()
cuda_test(progress_deadlock progress ARGS deadlock STDOUT_REGEX "PASS progress deadlock"
          STDERR_REGEX "deadlock_kernel@@deadlock" TIMEOUT 120)
# One block more than a wave: every resident block waits for the one that
# cannot start. A deadlock on hardware; here the watchdog ends it.
cuda_test(progress_overfull progress ARGS overfull RUN_OPTS "--threads@@2@@--watchdog@@2"
          STDOUT_REGEX "PASS progress overfull" STDERR_REGEX "overfull_kernel@@watchdog" TIMEOUT 120)
foreach(t 1 2)
  cuda_test(progress_watchdog_t${t} progress ARGS watchdog RUN_OPTS "--threads@@${t}@@--watchdog@@1"
            STDOUT_REGEX "PASS progress watchdog" STDERR_REGEX "work_kernel@@watchdog@@CTAs done" TIMEOUT 120)
endforeach()
# The progress line, forced on (stderr is not a terminal here) after 0.05 s.
# Interpreted: the kernel takes seconds there; compiled by the JIT it ends
# before the first line is due.
cuda_test(progress_line progress ARGS long RUN_OPTS "--threads@@2@@--progress@@0.05@@--exec@@interp"
          STDOUT_REGEX "PASS progress long" STDERR_REGEX "work_kernel@@[0-9]+/256 CTAs done@@warp instructions/s"
          TIMEOUT 180)
