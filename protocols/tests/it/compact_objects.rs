//! The runtime objects are compact while they are checked:
//! with the object's own dummies in transit, cloning, hashing and
//! comparing a strict or liberal object allocates nothing; messages with a
//! payload are kept beside the packed entries, come out where they went
//! in, and do not change the object's identity.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hash::BuildHasher;

use engine::{Message, Protocol};
use protocols::spec::{msg, par_every, seq, Role, Spec};
use protocols::{Liberal, Strict};

/// The system allocator, counting this thread's allocations (tests run in
/// parallel threads: a global count would see the others').
struct Counting;

thread_local! {
    // `const`: no lazy initialisation, so no allocation inside the
    // allocator.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call to `System` unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// How many allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// What the engine does with an object in every state: clone it, hash it,
/// compare it with the stored one.
fn clone_hash_compare<P: Protocol>(p: &P) -> usize {
    let hasher = hashbrown::DefaultHashBuilder::default();
    allocations(|| {
        let q = p.clone();
        assert_eq!(hasher.hash_one(&q), hasher.hash_one(p));
        assert!(q == *p);
    })
}

/// A master sends a `Job` to each of `k` workers, all in parallel; each
/// replies `Done`. Every message can be in transit at once.
fn jobs(k: usize) -> Spec {
    let work = par_every(0..k, |i| {
        let w = Role::indexed("worker", i);
        seq([msg("Job", "boss", w.clone()), msg("Done", w, "boss")])
    });
    let roles =
        std::iter::once(Role::new("boss")).chain((0..k).map(|i| Role::indexed("worker", i)));
    Spec::new("jobs", work).roles(roles)
}

/// Sends a `Job` from the boss to every worker with the object's own
/// dummy, and returns the object.
fn all_jobs_sent<P: Protocol>(mut p: P, k: usize) -> P {
    let job = engine::declared_dummies(&p)
        .into_iter()
        .find(|m| m.type_name() == "Job")
        .expect("Job is declared");
    for w in 1..=k {
        p.try_send(0, w, job.clone())
            .expect("the boss may send every job");
    }
    p
}

#[test]
fn checked_objects_clone_hash_and_compare_without_allocating() {
    let spec = jobs(4);
    let strict = all_jobs_sent(Strict::from_spec(&spec).unwrap(), 4);
    assert_eq!(strict.in_transit().len(), 4);
    assert_eq!(clone_hash_compare(&strict), 0, "{strict:?}");
    let on_the_fly = all_jobs_sent(Strict::on_the_fly(&spec).unwrap(), 4);
    assert_eq!(clone_hash_compare(&on_the_fly), 0, "{on_the_fly:?}");
    let liberal = all_jobs_sent(Liberal::from_spec(&spec).unwrap(), 4);
    assert_eq!(liberal.inboxes().iter().map(|i| i.len()).sum::<usize>(), 4);
    assert_eq!(clone_hash_compare(&liberal), 0, "{liberal:?}");
    // A dummy the user builds (`Message::named(type, ())`) is as good as
    // the object's own.
    let mut p = Strict::from_spec(&spec).unwrap();
    p.try_send(0, 1, Message::named("Job", ())).unwrap();
    assert_eq!(clone_hash_compare(&p), 0);
}

#[test]
fn messages_with_payloads_keep_their_order_and_do_not_change_identity() {
    let spec = jobs(3);
    let strict = Strict::from_spec(&spec).unwrap();
    let liberal = Liberal::from_spec(&spec).unwrap();
    payloads_round_trip(strict);
    payloads_round_trip(liberal);
}

/// Jobs 1 and 3 carry numbers, job 2 is a dummy: equal to the object with
/// dummies only, and each receive gives its own message back.
fn payloads_round_trip<P: Protocol + std::fmt::Debug>(start: P) {
    let mut p = start.clone();
    p.try_send(0, 1, Message::named("Job", 10u32)).unwrap();
    p.try_send(0, 2, Message::named("Job", ())).unwrap();
    p.try_send(0, 3, Message::named("Job", 30u32)).unwrap();
    let dummies = all_jobs_sent(start, 3);
    let hasher = hashbrown::DefaultHashBuilder::default();
    assert!(p == dummies, "{p:?} vs {dummies:?}");
    assert_eq!(hasher.hash_one(&p), hasher.hash_one(&dummies));
    // The worker in the middle first: the kept messages are found by
    // position, which its receive shifts.
    let (from, m) = p.try_recv(2, None).unwrap();
    assert_eq!((from, m.downcast_ref::<()>()), (0, Some(&())));
    let (_, m) = p.try_recv(3, Some(0)).unwrap();
    assert_eq!(m.downcast_ref::<u32>(), Some(&30));
    // A reply with a full path: kept, and given back with its path.
    p.try_send(3, 0, Message::named("jobs::Done", 'x')).unwrap();
    let (_, m) = p.try_recv(1, None).unwrap();
    assert_eq!(m.downcast_ref::<u32>(), Some(&10));
    let (from, m) = p.try_recv(0, Some(3)).unwrap();
    assert_eq!((from, m.type_path()), (3, "jobs::Done"));
    assert_eq!(m.downcast_ref::<char>(), Some(&'x'));
    // Nothing kept any more: clones allocate nothing again.
    p.try_send(2, 0, Message::named("Done", ())).unwrap();
    assert_eq!(clone_hash_compare(&p), 0);
}
