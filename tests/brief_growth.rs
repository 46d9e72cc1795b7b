//! `gatehouse check --all` is linear in the repository (issue 18): ten times
//! the briefs cost at most twelve times the work. Work is counted, not timed,
//! so the test is deterministic on a busy machine: the allocations and the
//! byte-string comparisons made while the rules run and the text report is
//! rendered, on issue 18's corpus (50 ADRs, 200 source folders, one brief
//! in ten with an untestable criterion) of 1,000 and of 10,000 briefs.
//! Comparing every brief's agent id with every other's cost 47× the
//! comparisons at 10× the briefs and no allocation at all.

#[allow(dead_code)]
#[path = "../crates/gatehouse-core/corpus/briefs.rs"]
mod briefs;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use gatehouse::model::{ChangeSet, Files, RepoIndex, RepoTree};

/// Counts the allocations of the thread that turned counting on.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn count() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

thread_local! {
    static COMPARISONS: Cell<u64> = const { Cell::new(0) };
}

/// Every byte-string comparison linked into this test binary (`==` and
/// `cmp` on `str` and `[u8]` compile to `memcmp` or `bcmp`), counted for
/// the thread that turned counting on: a rule comparing every brief with
/// every other allocates nothing, but compares.
///
/// # Safety
///
/// `a` and `b` are readable for `n` bytes, as the C function requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    if COUNTING.with(Cell::get) {
        COMPARISONS.with(|c| c.set(c.get() + 1));
    }
    for i in 0..n {
        // Volatile reads: the loop is never turned back into a call to `memcmp`.
        let (x, y) = unsafe { (std::ptr::read_volatile(a.add(i)), std::ptr::read_volatile(b.add(i))) };
        if x != y {
            return i32::from(x) - i32::from(y);
        }
    }
    0
}

/// `memcmp` where only equality matters.
///
/// # Safety
///
/// As [`memcmp`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    unsafe { memcmp(a, b, n) }
}

/// What `check --all` reads from issue 18's repository of `count` briefs.
fn repository(count: usize) -> ChangeSet {
    let (mut base, mut head) = (Files::new(), Files::new());
    let mut tree = briefs::add_shaped(briefs::issue_18(count), &mut base, &mut head);
    tree.extend(head.keys().cloned());
    let mut repos = RepoIndex::default();
    repos.insert("gyrum-labs/platform", None, Arc::new(RepoTree::new(tree)));
    ChangeSet { repo: Some("gyrum-labs/platform".into()), head, repos, ..Default::default() }
}

/// The work of the rules and the text report on `changes`.
struct Work {
    allocations: u64,
    comparisons: u64,
}

fn work(changes: &ChangeSet) -> (Work, gatehouse::model::Report) {
    ALLOCATIONS.with(|n| n.set(0));
    COMPARISONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    let report = gatehouse::rules::evaluate(changes);
    let text = gatehouse::render::text(&report, changes);
    COUNTING.with(|c| c.set(false));
    assert!(!text.is_empty());
    (Work { allocations: ALLOCATIONS.with(Cell::get), comparisons: COMPARISONS.with(Cell::get) }, report)
}

#[test]
fn ten_times_the_briefs_cost_at_most_twelve_times_the_work() {
    let small = repository(1_000);
    let large = repository(10_000);
    let (small_work, small_report) = work(&small);
    let (large_work, large_report) = work(&large);
    // The corpus is what issue 18 measured: every tenth brief fails one rule.
    let errors = |report: &gatehouse::model::Report| -> Vec<&'static str> {
        report.findings().filter(|f| f.severity == gatehouse::model::Severity::Error).map(|f| f.rule).collect()
    };
    assert_eq!(errors(&small_report), ["brief/untestable-criterion"; 100]);
    assert_eq!(errors(&large_report), ["brief/untestable-criterion"; 1_000]);
    for (what, small, large) in [
        ("allocations", small_work.allocations, large_work.allocations),
        ("comparisons", small_work.comparisons, large_work.comparisons),
    ] {
        let ratio = large as f64 / small as f64;
        eprintln!("{what}: {small} for 1,000 briefs, {large} for 10,000 (×{ratio:.2})");
        assert!(ratio <= 12.0, "10× the briefs cost {ratio:.2}× the {what} ({small} → {large})");
    }
}
