//! What the machine allows: the process's resident memory and the
//! memory budget a search may take by default, read from `/proc` and the
//! cgroup. Apart from the search's running budget (`budget.rs`), which
//! reads it as it runs, and from the limits' defaults (`limits.rs`),
//! which size themselves by it.

/// The process's resident memory, where the platform tells it cheaply
/// (Linux: `VmRSS` in `/proc/self/status`); `None` elsewhere, where the
/// memory budget cannot be enforced.
///
/// ```
/// if cfg!(target_os = "linux") {
///     assert!(engine::resident_bytes().unwrap() > 0);
/// }
/// ```
pub fn resident_bytes() -> Option<u64> {
    status_field("VmRSS:")
}

/// The process's peak resident memory so far (Linux: `VmHWM`); `None`
/// where the platform does not tell it.
///
/// ```
/// if cfg!(target_os = "linux") {
///     // The peak so far is at least what was resident before it was read.
///     let now = engine::resident_bytes().unwrap();
///     assert!(engine::peak_resident_bytes().unwrap() >= now);
/// }
/// ```
pub fn peak_resident_bytes() -> Option<u64> {
    status_field("VmHWM:")
}

/// A field of `/proc/self/status`, in bytes; `None` off Linux.
fn status_field(name: &str) -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    kib_field(&status, name)
}

/// The value of a `NAME:   1234 kB` line of a `/proc` file, in bytes.
pub(crate) fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// The memory budget used when none is given, in bytes of the process's
/// resident size: on Linux, half of the memory available or of the
/// process's cgroup limit (`memory.max`, v1 `memory.limit_in_bytes`),
/// whichever is smaller, and at most a quarter of its address-space limit
/// (`RLIMIT_AS`: virtual memory, so more headroom), at least 64 MiB; 4 GiB
/// where the machine's memory cannot be read. Read afresh at each call.
///
/// ```
/// assert!(engine::default_max_memory() >= 64 << 20);
/// ```
pub fn default_max_memory() -> u64 {
    if !cfg!(target_os = "linux") {
        return FALLBACK_MEMORY;
    }
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let meminfo = read("/proc/meminfo");
    let cgroup_limits = cgroup_limit_files()
        .iter()
        .filter_map(|p| read(p))
        .collect::<Vec<_>>();
    // Address space already taken (the binary, the `prust` command's
    // large stack) or promised: each search worker reserves a stack of
    // `WORKER_STACK_BYTES` when it starts, one per core by default.
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let reserved = kib_field(&status, "VmSize:").unwrap_or(0).saturating_add(
        (crate::stack::available_threads() as u64)
            .saturating_mul(crate::stack::WORKER_STACK_BYTES as u64),
    );
    default_memory_budget(
        meminfo.as_deref(),
        address_space_limit().map(|limit| (limit, reserved)),
        cgroup_limits.iter().map(String::as_str),
    )
    .unwrap_or(FALLBACK_MEMORY)
}

/// The default memory budget from what limits the process (a pure function
/// of the texts read, so that it can be tested):
///
/// - the memory available (`MemAvailable` of `/proc/meminfo`, else
///   `MemTotal`) and each cgroup limit (v2 `memory.max`, v1
///   `memory.limit_in_bytes`, of the process's cgroup and its ancestors):
///   half of the smallest, the other half left to the rest of the machine,
///   the page cache, and the allocator's slack;
/// - the address-space limit (`RLIMIT_AS`, `ulimit -v`, `prlimit --as`),
///   given with the address space already `reserved`: a quarter of what
///   is left. It counts *virtual* memory, and the budget is compared with
///   the *resident* size, read every few milliseconds: thread stacks (1 GiB
///   reserved each, see [`crate::stack`]) and malloc arenas (64 MiB each)
///   take address space that is never resident, hence `reserved`; and a
///   hash table or vector that doubles holds the old and the new
///   allocation at once, three times the data, between two reads. A
///   quarter keeps a search that is just under the budget able to grow its
///   largest table once more, plus the allocator's slack, without an
///   allocation failure (which aborts the process), so it ends inconclusive.
///
/// The smallest of these, at least 64 MiB; `None` when nothing is known.
pub(crate) fn default_memory_budget<'a>(
    meminfo: Option<&str>,
    address_space: Option<(u64, u64)>,
    cgroup_limits: impl IntoIterator<Item = &'a str>,
) -> Option<u64> {
    let available = meminfo
        .and_then(|info| kib_field(info, "MemAvailable:").or_else(|| kib_field(info, "MemTotal:")));
    // "max" (v2) is no limit; v1 writes "no limit" as a huge number, which
    // the minimum ignores by itself.
    let cgroup = cgroup_limits
        .into_iter()
        .filter_map(|t| t.trim().parse::<u64>().ok())
        .min();
    let memory = match (available, cgroup) {
        (Some(a), Some(c)) => Some(a.min(c)),
        (a, c) => a.or(c),
    };
    let unreserved = address_space.map(|(limit, reserved)| limit.saturating_sub(reserved));
    [memory.map(|m| m / 2), unreserved.map(|a| a / 4)]
        .into_iter()
        .flatten()
        .min()
        .map(|b| b.max(64 << 20))
}

/// The process's `RLIMIT_AS` soft limit, if finite (`Max address space`
/// in `/proc/self/limits`, in bytes, or `unlimited`).
fn address_space_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    parse_address_space(&limits)
}

/// The soft limit of the `Max address space` line of a `/proc/*/limits`
/// text; `None` for `unlimited` or no such line.
pub(crate) fn parse_address_space(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The files that hold the memory limits of the process's cgroup and of
/// each of its ancestors (a parent's limit binds its children too), for
/// cgroup v2 (`0::/path` in `/proc/self/cgroup`, `memory.max`) and v1 (the
/// `memory` controller's line, `memory.limit_in_bytes`). Inside a container
/// the path is usually `/` and the files are those of the container.
fn cgroup_limit_files() -> Vec<String> {
    let Ok(text) = std::fs::read_to_string("/proc/self/cgroup") else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (root, file) = if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")
        } else {
            continue;
        };
        let mut dir = path.trim_end_matches('/').to_string();
        loop {
            files.push(format!("{root}{dir}/{file}"));
            match dir.rfind('/') {
                Some(i) => dir.truncate(i),
                None => break,
            }
            if dir.is_empty() {
                files.push(format!("{root}/{file}"));
                break;
            }
        }
    }
    files
}

/// The default memory budget where the machine's memory is unknown: 4 GiB.
pub(crate) const FALLBACK_MEMORY: u64 = 4 << 30;
