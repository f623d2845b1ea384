//! The connection slots (`--max-connections`), and which connection gives
//! its slot up when they are all taken: one that is waiting for a request
//! head, never one serving a request. A slow-header (slowloris) client
//! holds its slot only until a newer connection needs it, so that it
//! cannot keep normal clients out.
//!
//! A connection is shed only once the proxy has read all it sent and found
//! no whole head; until its first read it is `Unread` (its head may be in
//! its socket while the task that reads it waits for a core), and a new
//! connection waits for that read rather than shed it. Waiting connections
//! are shed in this order, the longest-waiting first in each class:
//! 1. those that sent part of a request head and then nothing more: the
//!    slow headers themselves;
//! 2. keep-alive connections idle after an answer: clients, but one may
//!    be sending its next request just as it is closed;
//! 3. those that have sent nothing at all: a new client's head may be on
//!    its way.
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
    /// A shed connection closed, or an unread one was read: what
    /// [`Admission::Wait`] waits for.
    changed: Notify,
}

#[derive(Default)]
struct Book {
    /// Connections holding a descriptor, those being shed included.
    open: usize,
    /// Shed, not closed yet.
    shedding: usize,
    /// Admitted, not read yet.
    unread: usize,
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
    /// Not read yet; its ticket is its turn of arrival.
    Unread(u64),
    Waiting(Place),
    /// From a whole request head to its answer's last byte.
    Serving,
    Shed,
}

/// A waiting connection's place in the shedding order: by class, then by
/// ticket (drawn in turn when it arrived, or when its last answer went).
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
    /// No slot now, but one soon: [`SHEDDING_AT_ONCE`] are closing
    /// already, or connections not read yet may turn out to be waiting.
    /// Wait for [`Slots::changed`] and ask again.
    Wait,
}

impl Slots {
    pub fn new(max: usize) -> Arc<Slots> {
        Arc::new(Slots {
            max: max.max(1),
            book: Mutex::default(),
            changed: Notify::new(),
        })
    }

    /// A slot for a new connection, shedding a waiting one if every slot
    /// is taken.
    pub fn admit(self: &Arc<Self>) -> Admission {
        let mut book = self.book();
        let shed = if book.live() < self.max {
            false
        } else if book.waiting.is_empty() {
            return if book.unread > 0 {
                Admission::Wait
            } else {
                Admission::Full
            };
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
        book.unread += 1;
        let ticket = book.ticket();
        Admission::Admitted {
            slot: Slot {
                slots: self.clone(),
                mark: Arc::new(Mark {
                    phase: Mutex::new(Phase::Unread(ticket)),
                    shed_order: Notify::new(),
                }),
            },
            shed,
        }
    }

    /// Resolves at the next change [`Admission::Wait`] waits for (or at
    /// once if one came since the last call).
    pub fn changed(&self) -> impl Future<Output = ()> + '_ {
        self.changed.notified()
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
    /// A read found nothing more to read, and no whole head: after `bytes`
    /// of a head, a slow header; after none, a silent connection. Its
    /// turn stays that of its arrival. A keep-alive connection stays one.
    pub fn read_dry(&self, bytes: bool) {
        let class = if bytes {
            Class::PartHead
        } else {
            Class::Silent
        };
        let mut book = self.slots.book();
        let mut phase = lock(&self.mark.phase);
        let ticket = match *phase {
            Phase::Unread(ticket) => {
                self.leave_unread(&mut book);
                ticket
            }
            Phase::Waiting(place) if place.class == Class::Silent && class == Class::PartHead => {
                book.waiting.remove(&place);
                place.ticket
            }
            _ => return,
        };
        let place = Place { class, ticket };
        book.waiting.insert(place, self.mark.clone());
        *phase = Phase::Waiting(place);
    }

    /// A whole request head came: never shed until [`Slot::answered`].
    /// `false` if it was shed first (its task is closing it).
    pub fn serving(&self) -> bool {
        let mut book = self.slots.book();
        let mut phase = lock(&self.mark.phase);
        match *phase {
            Phase::Shed => return false,
            Phase::Serving => return true,
            Phase::Unread(_) => self.leave_unread(&mut book),
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

    fn leave_unread(&self, book: &mut Book) {
        book.unread -= 1;
        // A new connection may be waiting to see what this one is.
        self.slots.changed.notify_one();
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut book = self.slots.book();
        match *lock(&self.mark.phase) {
            Phase::Unread(_) => self.leave_unread(&mut book),
            Phase::Waiting(place) => {
                book.waiting.remove(&place);
            }
            Phase::Serving => {}
            Phase::Shed => {
                book.shedding -= 1;
                self.slots.changed.notify_one();
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

    /// Admitted, then read: nothing (`silent`) or part of a head.
    fn waiting(slots: &Arc<Slots>, silent: bool) -> (Slot, bool) {
        let (slot, shed) = admitted(slots);
        slot.read_dry(!silent);
        (slot, shed)
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
        let held: Vec<_> = (0..3).map(|_| waiting(&slots, true)).collect();
        assert!(held.iter().all(|(_, shed)| !shed));
        assert_eq!(slots.open(), 3);
        drop(held);
        assert_eq!(slots.open(), 0);
        let book = slots.book();
        assert_eq!((book.shedding, book.unread), (0, 0));
        assert!(book.waiting.is_empty());
    }

    #[test]
    fn the_longest_waiting_slow_header_is_shed_first() {
        let slots = Slots::new(3);
        let (a, _) = waiting(&slots, true);
        let (b, _) = admitted(&slots);
        let (c, _) = admitted(&slots);
        // b and c sent part of a head, read in the order c, b: b arrived
        // first. a sent nothing.
        c.read_dry(true);
        b.read_dry(true);
        let (d, shed) = waiting(&slots, true);
        assert!(shed);
        assert!(is_shed(&b));
        assert!(ready(b.shed_order()));
        assert!(!ready(a.shed_order()) && !ready(c.shed_order()));
        // Its slot went to d: still 3 live, plus b until it closes.
        assert_eq!(slots.open(), 4);
        assert!(!b.serving(), "a shed connection serves nothing");
        drop(b);
        assert_eq!(slots.open(), 3);
        let (_e, shed) = waiting(&slots, true);
        assert!(shed);
        assert!(is_shed(&c));
        // a and d sent nothing: shed only now, a first.
        let (_f, shed) = waiting(&slots, true);
        assert!(shed);
        assert!(is_shed(&a) && !is_shed(&d));
    }

    #[test]
    fn a_connection_serving_a_request_is_never_shed() {
        let slots = Slots::new(2);
        let (a, _) = waiting(&slots, false);
        let (b, _) = waiting(&slots, false);
        // a's head came whole although it had been waiting the longest.
        assert!(a.serving());
        let (_c, shed) = waiting(&slots, true);
        assert!(shed);
        assert!(is_shed(&b));
        assert_eq!(phase(&a), Phase::Serving);
        // Reads while it serves change nothing.
        a.read_dry(true);
        assert_eq!(phase(&a), Phase::Serving);
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
    fn an_unread_connection_is_not_shed_and_newcomers_wait_for_its_read() {
        let slots = Slots::new(2);
        let (a, _) = admitted(&slots);
        let (b, _) = admitted(&slots);
        assert!(b.serving());
        assert!(matches!(slots.admit(), Admission::Wait));
        // a is read, and found silent: the wait is told, and a goes.
        a.read_dry(false);
        assert!(ready(slots.changed()));
        let (_c, shed) = admitted(&slots);
        assert!(shed && is_shed(&a));
    }

    #[test]
    fn classes_are_shed_in_order() {
        let slots = Slots::new(3);
        let (silent, _) = waiting(&slots, true);
        let (kept, _) = admitted(&slots);
        assert!(kept.serving());
        kept.answered();
        let (slow, _) = waiting(&slots, false);
        let (_d, _) = admitted(&slots);
        assert!(is_shed(&slow) && !is_shed(&kept) && !is_shed(&silent));
        let (_e, _) = admitted(&slots);
        assert!(is_shed(&kept) && !is_shed(&silent));
        let (_f, _) = admitted(&slots);
        assert!(is_shed(&silent));
    }

    #[test]
    fn a_silent_connection_that_begins_a_head_is_a_slow_header() {
        let slots = Slots::new(2);
        let (a, _) = waiting(&slots, true);
        let (b, _) = waiting(&slots, true);
        // b begins a head and stops: before a, although a came first.
        b.read_dry(true);
        let (_c, shed) = waiting(&slots, true);
        assert!(shed && is_shed(&b) && !is_shed(&a));
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
        // a serves another request: b has been idle longer, and stays a
        // keep-alive connection when it begins its next head.
        assert!(a.serving());
        a.answered();
        b.read_dry(true);
        assert!(matches!(
            phase(&b),
            Phase::Waiting(Place {
                class: Class::KeepAlive,
                ..
            })
        ));
        let (_c, shed) = admitted(&slots);
        assert!(shed);
        assert!(is_shed(&b) && !is_shed(&a));
    }

    #[test]
    fn sheds_in_flight_are_bounded() {
        let slots = Slots::new(1);
        let (mut last, _) = waiting(&slots, true);
        let mut closing = Vec::new();
        for _ in 0..SHEDDING_AT_ONCE {
            let (next, shed) = waiting(&slots, true);
            assert!(shed);
            closing.push(std::mem::replace(&mut last, next));
        }
        assert!(matches!(slots.admit(), Admission::Wait));
        assert_eq!(slots.open(), 1 + SHEDDING_AT_ONCE);
        // One closes: the wait is told, and one more may be shed.
        closing.pop();
        assert!(ready(slots.changed()));
        let (_next, shed) = admitted(&slots);
        assert!(shed);
        drop(closing);
        assert_eq!(slots.open(), 2);
    }

    #[test]
    fn a_slot_freed_while_another_is_shed_is_taken_without_shedding() {
        let slots = Slots::new(2);
        let (a, _) = waiting(&slots, true);
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
        let (a, _) = waiting(&slots, true);
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
