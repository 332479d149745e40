/**
 * The seccomp profile of episode and grading containers. Docker's default profile lets a root
 * process attach to PID 1 with ptrace (seen here: PTRACE_ATTACH returned 0), which would let an
 * agent end its own sandbox and turn a 0 into a masked INFRA_ERROR. This profile allows by default
 * and denies, with EPERM: tracing and reading or writing other processes' memory, and the
 * kernel-facing calls Docker's default also refuses (module loading, kexec, mounts, namespaces,
 * keyrings, bpf, perf, clock setting, swap, reboot). Capabilities stay dropped as before.
 */
const DENIED = [
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'kcmp',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'keyctl',
  'add_key',
  'request_key',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'create_module',
  'mount',
  'umount',
  'umount2',
  'pivot_root',
  'open_by_handle_at',
  'name_to_handle_at',
  'setns',
  'unshare',
  'swapon',
  'swapoff',
  'reboot',
  'acct',
  'quotactl',
  'lookup_dcookie',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'stime',
  'syslog',
  'vhangup',
  'iopl',
  'ioperm',
  'fsopen',
  'fsmount',
  'move_mount',
  'open_tree',
];

/** CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
const CLONE_NEW_FLAGS = [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000];

export const SANDBOX_SECCOMP_PROFILE = JSON.stringify({
  defaultAction: 'SCMP_ACT_ALLOW',
  architectures: ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32', 'SCMP_ARCH_AARCH64', 'SCMP_ARCH_ARM'],
  syscalls: [
    { names: DENIED, action: 'SCMP_ACT_ERRNO', errnoRet: 1 },
    // clone with a new-namespace flag (a new user namespace would hand back the dropped capabilities):
    // seccomp has no "masked not equal", so one rule per flag, (flags & FLAG) == FLAG.
    ...CLONE_NEW_FLAGS.map((flag) => ({
      names: ['clone'],
      action: 'SCMP_ACT_ERRNO',
      errnoRet: 1,
      args: [{ index: 0, value: flag, valueTwo: flag, op: 'SCMP_CMP_MASKED_EQ' }],
    })),
    { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: 38 }, // ENOSYS: libc falls back to clone
  ],
});
