//! The connection slots (`--max-connections`), and which connection gives
//! its slot up when they are all taken: one that is waiting for a request
//! head, never one serving a request. A slow-header (slowloris) client
//! holds its slot only until a newer connection needs it, so that it
//! cannot keep normal clients out.
//!
//! Waiting connections are shed in this order, the longest-waiting first
//! in each class:
//! 1. those that sent part of a request head and not the rest: the slow
//!    headers themselves;
//! 2. keep-alive connections idle after an answer: clients, but one may
//!    be sending its next request just as it is closed;
//! 3. those that have sent nothing the proxy has read: a new client's
//!    head may be in flight, or in its socket unread while the task that
//!    reads it waits for a core; shed only when no slow header is left.
//!
//! Each admission is one lock, and O(log n) in the connections waiting.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// Shed connections that may be still closing at once: each holds a
/// descriptor beyond `--max-connections` until its task drops it.
pub const SHEDDING_AT_ONCE: usize = 16;

/// The slots, shared by the accept loop and every connection.
pub struct Slots {
    max: usize,
    book: Mutex<Book>,
    /// A shed connection closed: what [`Admission::Wait`] waits for.
    closed: Notify,
}

#[derive(Default)]
struct Book {
    /// Connections holding a descriptor, those being shed included.
    open: usize,
    /// Shed, not closed yet.
    shedding: usize,
    next_ticket: u64,
    /// The connections waiting for a head: the first is the next to shed.
    waiting: BTreeMap<Place, Arc<Mark>>,
}

impl Book {
    fn live(&self) -> usize {
        self.open - self.shedding
    }

    fn ticket(&mut self) -> u64 {
        self.next_ticket += 1;
        self.next_ticket
    }
}

/// A connection's phase, as the book and the connection both see it;
/// changed only under the book's lock.
struct Mark {
    phase: Mutex<Phase>,
    /// Given when it is shed; the connection's task then closes it.
    shed_order: Notify,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Waiting(Place),
    /// From a whole request head to its answer's last byte.
    Serving,
    Shed,
}

/// A waiting connection's place in the shedding order: by class, then by
/// ticket (drawn in turn when it began to wait).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Place {
    class: Class,
    ticket: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Class {
    PartHead,
    KeepAlive,
    Silent,
}

/// What to do with a connection just accepted.
pub enum Admission {
    /// Served in `slot`: a free one, or, with `shed`, the slot of a
    /// waiting connection, which is being closed.
    Admitted { slot: Slot, shed: bool },
    /// Every slot serves a request: refuse (503).
    Full,
    /// Only waiting connections hold the slots, but [`SHEDDING_AT_ONCE`]
    /// are closing already: wait for [`Slots::closed`] and ask again.
    Wait,
}

impl Slots {
    pub fn new(max: usize) -> Arc<Slots> {
        Arc::new(Slots {
            max: max.max(1),
            book: Mutex::default(),
            closed: Notify::new(),
        })
    }

    /// A slot for a new connection, shedding a waiting one if every slot
    /// is taken.
    pub fn admit(self: &Arc<Self>) -> Admission {
        let mut book = self.book();
        let shed = if book.live() < self.max {
            false
        } else if book.waiting.is_empty() {
            return Admission::Full;
        } else if book.shedding >= SHEDDING_AT_ONCE {
            return Admission::Wait;
        } else {
            let Some((_, mark)) = book.waiting.pop_first() else {
                return Admission::Full;
            };
            *lock(&mark.phase) = Phase::Shed;
            book.shedding += 1;
            // Kept if its task is not waiting for it yet: never lost.
            mark.shed_order.notify_one();
            true
        };
        book.open += 1;
        let place = Place {
            class: Class::Silent,
            ticket: book.ticket(),
        };
        let mark = Arc::new(Mark {
            phase: Mutex::new(Phase::Waiting(place)),
            shed_order: Notify::new(),
        });
        book.waiting.insert(place, mark.clone());
        Admission::Admitted {
            slot: Slot {
                slots: self.clone(),
                mark,
            },
            shed,
        }
    }

    /// Resolves when a shed connection has closed since the last call (or
    /// from now on).
    pub fn closed(&self) -> impl Future<Output = ()> + '_ {
        self.closed.notified()
    }

    /// Connections open, those being shed included.
    pub fn open(&self) -> usize {
        self.book().open
    }

    fn book(&self) -> MutexGuard<'_, Book> {
        lock(&self.book)
    }
}

/// A lock that a panic elsewhere does not poison for good: the book is
/// consistent after every statement that holds it.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One connection's slot; given back when dropped, which the connection's
/// task does after it has closed the socket.
pub struct Slot {
    slots: Arc<Slots>,
    mark: Arc<Mark>,
}

impl Slot {
    /// Part of a head was read, and then nothing more was there: from a
    /// new connection, that makes it a slow header until the head is
    /// whole. Its place in turn stays that of its arrival.
    pub fn heard(&self) {
        let mut book = self.slots.book();
        let mut phase = lock(&self.mark.phase);
        if let Phase::Waiting(place) = *phase {
            if place.class == Class::Silent {
                let moved = Place {
                    class: Class::PartHead,
                    ..place
                };
                book.waiting.remove(&place);
                book.waiting.insert(moved, self.mark.clone());
                *phase = Phase::Waiting(moved);
            }
        }
    }

    /// A whole request head came: never shed until [`Slot::answered`].
    /// `false` if it was shed first (its task is closing it).
    pub fn serving(&self) -> bool {
        let mut book = self.slots.book();
        let mut phase = lock(&self.mark.phase);
        match *phase {
            Phase::Shed => return false,
            Phase::Serving => return true,
            Phase::Waiting(place) => {
                book.waiting.remove(&place);
            }
        }
        *phase = Phase::Serving;
        true
    }

    /// The answer went out whole: the connection waits for its next
    /// request, as the newest keep-alive one.
    pub fn answered(&self) {
        let mut book = self.slots.book();
        let mut phase = lock(&self.mark.phase);
        if *phase == Phase::Serving {
            let place = Place {
                class: Class::KeepAlive,
                ticket: book.ticket(),
            };
            book.waiting.insert(place, self.mark.clone());
            *phase = Phase::Waiting(place);
        }
    }

    /// Resolves when the connection is to be closed for a new one.
    pub fn shed_order(&self) -> impl Future<Output = ()> + '_ {
        self.mark.shed_order.notified()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut book = self.slots.book();
        match *lock(&self.mark.phase) {
            Phase::Waiting(place) => {
                book.waiting.remove(&place);
            }
            Phase::Serving => {}
            Phase::Shed => {
                book.shedding -= 1;
                self.slots.closed.notify_one();
            }
        }
        book.open -= 1;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn admitted(slots: &Arc<Slots>) -> (Slot, bool) {
        match slots.admit() {
            Admission::Admitted { slot, shed } => (slot, shed),
            Admission::Full => panic!("refused"),
            Admission::Wait => panic!("told to wait"),
        }
    }

    fn phase(slot: &Slot) -> Phase {
        *lock(&slot.mark.phase)
    }

    fn is_shed(slot: &Slot) -> bool {
        phase(slot) == Phase::Shed
    }

    /// Whether `future` is ready, without waiting.
    fn ready(future: impl Future<Output = ()>) -> bool {
        let waker = futures_util::task::noop_waker();
        std::pin::pin!(future)
            .poll(&mut std::task::Context::from_waker(&waker))
            .is_ready()
    }

    #[test]
    fn free_slots_are_taken_without_shedding() {
        let slots = Slots::new(3);
        let held: Vec<_> = (0..3).map(|_| admitted(&slots)).collect();
        assert!(held.iter().all(|(_, shed)| !shed));
        assert_eq!(slots.open(), 3);
        drop(held);
        assert_eq!(slots.open(), 0);
        let book = slots.book();
        assert_eq!(book.shedding, 0);
        assert!(book.waiting.is_empty());
    }

    #[test]
    fn the_longest_waiting_slow_header_is_shed_first() {
        let slots = Slots::new(3);
        let (a, _) = admitted(&slots);
        let (b, _) = admitted(&slots);
        let (c, _) = admitted(&slots);
        // b and c sent part of a head, in the order c, b: b arrived first.
        c.heard();
        b.heard();
        let (d, shed) = admitted(&slots);
        assert!(shed);
        assert!(is_shed(&b));
        assert!(ready(b.shed_order()));
        assert!(!ready(a.shed_order()) && !ready(c.shed_order()));
        // Its slot went to d: still 3 live, plus b until it closes.
        assert_eq!(slots.open(), 4);
        assert!(!b.serving(), "a shed connection serves nothing");
        drop(b);
        assert_eq!(slots.open(), 3);
        let (_e, shed) = admitted(&slots);
        assert!(shed);
        assert!(is_shed(&c));
        // a and d sent nothing: shed only now, a first.
        let (_f, shed) = admitted(&slots);
        assert!(shed);
        assert!(is_shed(&a) && !is_shed(&d));
    }

    #[test]
    fn a_connection_serving_a_request_is_never_shed() {
        let slots = Slots::new(2);
        let (a, _) = admitted(&slots);
        let (b, _) = admitted(&slots);
        a.heard();
        b.heard();
        // a's head came whole although it had been waiting the longest.
        assert!(a.serving());
        let (_c, shed) = admitted(&slots);
        assert!(shed);
        assert!(is_shed(&b));
        assert_eq!(phase(&a), Phase::Serving);
        // The rest of the answer's way: still not shed.
        a.heard();
        assert!(matches!(
            slots.admit(),
            Admission::Admitted { shed: true, .. }
        ));
        assert_eq!(phase(&a), Phase::Serving);
    }

    #[test]
    fn every_slot_serving_refuses() {
        let slots = Slots::new(2);
        let held: Vec<_> = (0..2).map(|_| admitted(&slots).0).collect();
        assert!(held.iter().all(Slot::serving));
        assert!(matches!(slots.admit(), Admission::Full));
        assert_eq!(slots.open(), 2);
    }

    #[test]
    fn classes_are_shed_in_order() {
        let slots = Slots::new(3);
        let (silent, _) = admitted(&slots);
        let (kept, _) = admitted(&slots);
        assert!(kept.serving());
        kept.answered();
        let (slow, _) = admitted(&slots);
        slow.heard();
        let (_d, _) = admitted(&slots);
        assert!(is_shed(&slow) && !is_shed(&kept) && !is_shed(&silent));
        let (_e, _) = admitted(&slots);
        assert!(is_shed(&kept) && !is_shed(&silent));
        let (_f, _) = admitted(&slots);
        assert!(is_shed(&silent));
    }

    #[test]
    fn a_keep_alive_connection_waits_again_as_the_newest() {
        let slots = Slots::new(2);
        let (a, _) = admitted(&slots);
        let (b, _) = admitted(&slots);
        for slot in [&a, &b] {
            assert!(slot.serving());
            slot.answered();
        }
        // a serves another request: b has been idle longer.
        assert!(a.serving());
        a.answered();
        let (_c, shed) = admitted(&slots);
        assert!(shed);
        assert!(is_shed(&b) && !is_shed(&a));
    }

    #[test]
    fn sheds_in_flight_are_bounded() {
        let slots = Slots::new(1);
        let (mut last, _) = admitted(&slots);
        let mut closing = Vec::new();
        for _ in 0..SHEDDING_AT_ONCE {
            let (next, shed) = admitted(&slots);
            assert!(shed);
            closing.push(std::mem::replace(&mut last, next));
        }
        assert!(matches!(slots.admit(), Admission::Wait));
        assert_eq!(slots.open(), 1 + SHEDDING_AT_ONCE);
        // One closes: the wait is told, and one more may be shed.
        closing.pop();
        assert!(ready(slots.closed()));
        let (_next, shed) = admitted(&slots);
        assert!(shed);
        drop(closing);
        assert_eq!(slots.open(), 2);
    }

    #[test]
    fn a_slot_freed_while_another_is_shed_is_taken_without_shedding() {
        let slots = Slots::new(2);
        let (a, _) = admitted(&slots);
        let (b, _) = admitted(&slots);
        assert!(b.serving());
        let (_c, shed) = admitted(&slots);
        assert!(shed && is_shed(&a));
        // a is still closing when b's request ends and b closes.
        drop(b);
        let (_d, shed) = admitted(&slots);
        assert!(!shed, "b's slot was free");
        assert_eq!(slots.open(), 3);
        drop(a);
        assert_eq!(slots.open(), 2);
    }

    #[tokio::test]
    async fn a_shed_order_reaches_a_task_that_waits_for_it() {
        let slots = Slots::new(1);
        let (a, _) = admitted(&slots);
        let task = tokio::spawn(async move {
            a.shed_order().await;
            drop(a);
        });
        let (_b, shed) = admitted(&slots);
        assert!(shed);
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("the order was lost")
            .unwrap();
        assert_eq!(slots.open(), 1);
    }
}
