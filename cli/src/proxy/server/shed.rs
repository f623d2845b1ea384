//! The connection slots (`--max-connections`), and which connection gives
//! its slot up when they are all taken: the one that has been reading a
//! request head the longest. A slow-header (slowloris) client holds its
//! slot only until a newer connection needs it, so that it cannot keep
//! normal clients out; a connection serving a request is never shed.
//!
//! A connection is in one of three phases:
//! - fresh: admitted, its bytes not read yet (not shed: its head may
//!   well be waiting in the socket);
//! - reading: a read found its head incomplete, or its last answer went
//!   out and it waits for the next request (keep-alive);
//! - serving: from a complete request head to its answer's last byte.
//!
//! Connections that have not sent one whole head yet are shed before
//! keep-alive ones: those have shown to be clients, and a client may be
//! sending its next request on one just as it is closed.
//!
//! Each admission is one lock, and O(log n) in the connections reading.

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
    /// A shed connection closed or a fresh one left its phase: what the
    /// accept loop waits for on [`Admission::Wait`].
    changed: Notify,
}

#[derive(Default)]
struct Book {
    /// Connections holding a descriptor, those being shed included.
    open: usize,
    /// Shed, not closed yet.
    shedding: usize,
    /// Admitted and not yet read.
    fresh: usize,
    next_ticket: u64,
    /// The connections reading a head: the first is the next to shed.
    reading: BTreeMap<Place, Arc<Mark>>,
}

impl Book {
    fn live(&self) -> usize {
        self.open - self.shedding
    }
}

/// A connection's phase, as the book and the connection both see it;
/// changed only under the book's lock.
#[derive(Default)]
struct Mark {
    phase: Mutex<Phase>,
    /// Set when it is shed; the connection's task closes it.
    shed_order: Notify,
}

#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    #[default]
    Fresh,
    Reading(Place),
    Serving,
    Shed,
}

/// A reader's place in the shedding order: first heads before next ones,
/// then by when it began reading (a ticket drawn in turn).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Place {
    head: Head,
    ticket: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Head {
    First,
    /// After an answer, on a keep-alive connection.
    Next,
}

/// What to do with a connection just accepted.
pub enum Admission {
    /// Served in `slot`: a free one, or, with `shed`, the slot of the
    /// connection that had been reading its head the longest.
    Admitted { slot: Slot, shed: bool },
    /// Every slot serves a request: refuse (503).
    Full,
    /// No slot can be had now, but may be soon (a fresh connection is
    /// about to be read, or [`SHEDDING_AT_ONCE`] are closing): wait for
    /// [`Slots::changed`] and ask again.
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

    /// A slot for a new connection, shedding the oldest head reader if
    /// every slot is taken.
    pub fn admit(self: &Arc<Self>) -> Admission {
        let mut book = self.book();
        let shed = if book.live() < self.max {
            false
        } else if let Some((_, mark)) = book.reading.first_key_value() {
            if book.shedding >= SHEDDING_AT_ONCE {
                return Admission::Wait;
            }
            let mark = mark.clone();
            *lock(&mark.phase) = Phase::Shed;
            book.reading.pop_first();
            book.shedding += 1;
            // Stored if its task is not waiting yet: the order is not lost.
            mark.shed_order.notify_one();
            true
        } else if book.fresh > 0 {
            return Admission::Wait;
        } else {
            return Admission::Full;
        };
        book.open += 1;
        book.fresh += 1;
        Admission::Admitted {
            slot: Slot {
                slots: self.clone(),
                mark: Arc::default(),
            },
            shed,
        }
    }

    /// Resolves at the next change an [`Admission::Wait`] waits for (or
    /// at once if one came since the last wait).
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
    /// A read found no complete head (or the last answer went out): the
    /// connection may be shed from now on, after every older reader.
    /// `false` once it has been shed.
    pub fn reading(&self) -> bool {
        let mut book = self.slots.book();
        let mut phase = lock(&self.mark.phase);
        let head = match *phase {
            Phase::Shed => return false,
            Phase::Reading(_) => return true,
            Phase::Fresh => {
                self.left_fresh(&mut book);
                Head::First
            }
            Phase::Serving => Head::Next,
        };
        let place = Place {
            head,
            ticket: book.next_ticket,
        };
        book.next_ticket += 1;
        book.reading.insert(place, self.mark.clone());
        *phase = Phase::Reading(place);
        true
    }

    /// A whole request head came: never shed until [`Slot::reading`]
    /// again. `false` if it was shed first (its task is closing it).
    pub fn serving(&self) -> bool {
        let mut book = self.slots.book();
        let mut phase = lock(&self.mark.phase);
        match *phase {
            Phase::Shed => return false,
            Phase::Serving => return true,
            Phase::Fresh => self.left_fresh(&mut book),
            Phase::Reading(place) => {
                book.reading.remove(&place);
            }
        }
        *phase = Phase::Serving;
        true
    }

    /// Resolves when the connection is to be closed for a new one.
    pub fn shed_order(&self) -> impl Future<Output = ()> + '_ {
        self.mark.shed_order.notified()
    }

    fn left_fresh(&self, book: &mut Book) {
        book.fresh -= 1;
        // A new connection may be waiting for this one to be read.
        self.slots.changed.notify_one();
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut book = self.slots.book();
        let phase = *lock(&self.mark.phase);
        match phase {
            Phase::Fresh => self.left_fresh(&mut book),
            Phase::Reading(place) => {
                book.reading.remove(&place);
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

    fn phase(slot: &Slot) -> Phase {
        *lock(&slot.mark.phase)
    }

    /// Whether the slot's shed order has come, without waiting.
    fn ordered_shed(slot: &Slot) -> bool {
        let order = slot.shed_order();
        futures_util::pin_mut!(order);
        let waker = futures_util::task::noop_waker();
        order
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
        assert_eq!((book.fresh, book.shedding), (0, 0));
        assert!(book.reading.is_empty());
    }

    #[test]
    fn the_oldest_head_reader_is_shed_first() {
        let slots = Slots::new(3);
        let (a, _) = admitted(&slots);
        let (b, _) = admitted(&slots);
        let (c, _) = admitted(&slots);
        // Read in the order b, c, a: b has been reading the longest.
        assert!(b.reading() && c.reading() && a.reading());
        let (d, shed) = admitted(&slots);
        assert!(shed);
        assert_eq!(phase(&b), Phase::Shed);
        assert!(ordered_shed(&b));
        assert!(!ordered_shed(&a) && !ordered_shed(&c));
        // Its slot went to d: still 3 live, plus b until it closes.
        assert_eq!(slots.open(), 4);
        assert!(!b.serving(), "a shed connection serves nothing");
        drop(b);
        assert_eq!(slots.open(), 3);
        assert!(d.reading());
        let (_e, shed) = admitted(&slots);
        assert!(shed);
        assert_eq!(phase(&c), Phase::Shed);
        assert!(matches!(phase(&a), Phase::Reading(Place { ticket: 2, .. })));
    }

    #[test]
    fn a_connection_serving_a_request_is_never_shed() {
        let slots = Slots::new(2);
        let (a, _) = admitted(&slots);
        let (b, _) = admitted(&slots);
        assert!(a.reading() && b.reading());
        // a's head came whole although it had been reading the longest.
        assert!(a.serving());
        let (_c, shed) = admitted(&slots);
        assert!(shed);
        assert_eq!(phase(&b), Phase::Shed);
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
    fn keep_alive_connections_are_shed_after_first_heads() {
        let slots = Slots::new(3);
        let (a, _) = admitted(&slots);
        let (b, _) = admitted(&slots);
        // a served a request and waits for its next one; b, reading its
        // first head since after a, goes first all the same.
        assert!(a.serving() && a.reading());
        assert!(b.reading());
        let (c, _) = admitted(&slots);
        assert!(c.reading());
        let (_d, shed) = admitted(&slots);
        assert!(shed);
        assert_eq!(phase(&b), Phase::Shed);
        let (_e, shed) = admitted(&slots);
        assert!(shed);
        assert_eq!(phase(&c), Phase::Shed);
        assert_eq!(
            phase(&a),
            Phase::Reading(Place {
                head: Head::Next,
                ticket: 0
            })
        );
        // Only keep-alive ones left to shed: the longest-idle goes.
        let (_f, shed) = admitted(&slots);
        assert!(shed);
        assert_eq!(phase(&a), Phase::Shed);
    }

    #[test]
    fn a_fresh_connection_is_not_shed_and_makes_newcomers_wait() {
        let slots = Slots::new(1);
        let (a, _) = admitted(&slots);
        assert!(matches!(slots.admit(), Admission::Wait));
        // Once read, it may be shed; and the wait was told.
        assert!(a.reading());
        let told = slots.changed();
        futures_util::pin_mut!(told);
        let waker = futures_util::task::noop_waker();
        assert!(told
            .poll(&mut std::task::Context::from_waker(&waker))
            .is_ready());
        let (_b, shed) = admitted(&slots);
        assert!(shed);
    }

    #[test]
    fn sheds_in_flight_are_bounded() {
        let slots = Slots::new(1);
        let (mut last, _) = admitted(&slots);
        let mut closing = Vec::new();
        for _ in 0..SHEDDING_AT_ONCE {
            assert!(last.reading());
            let (next, shed) = admitted(&slots);
            assert!(shed);
            closing.push(std::mem::replace(&mut last, next));
        }
        assert!(last.reading());
        assert!(matches!(slots.admit(), Admission::Wait));
        assert_eq!(slots.open(), 1 + SHEDDING_AT_ONCE);
        // One closes: one more may be shed.
        closing.pop();
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
        assert!(a.reading() && b.serving());
        let (_c, shed) = admitted(&slots);
        assert!(shed);
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
        assert!(a.reading());
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
