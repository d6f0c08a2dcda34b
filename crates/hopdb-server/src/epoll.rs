//! A minimal safe wrapper over Linux epoll, for the worker pool: one interest list that every
//! worker waits on at once (leader/followers). Sockets are registered one-shot, so an event
//! goes to one worker, and the socket is not reported again until that worker re-arms it:
//! a connection is never served by two workers at once.
//!
//! (mio and polling poll from one thread at a time; waiting from several threads on one epoll
//! set is what lets a worker take the next ready connection without a hand-off.)

#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// What a registration waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interest {
    /// Bytes to read, end-of-file or an error.
    Read,
    /// Room in the send buffer (a reply that did not fit).
    Write,
}

/// One epoll instance.
#[derive(Debug)]
pub(crate) struct Epoll {
    fd: OwnedFd,
}

fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn event(token: u64, interest: Interest, oneshot: bool) -> libc::epoll_event {
    let mut events = match interest {
        Interest::Read => libc::EPOLLIN | libc::EPOLLRDHUP,
        Interest::Write => libc::EPOLLOUT,
    };
    if oneshot {
        events |= libc::EPOLLONESHOT;
    }
    libc::epoll_event {
        events: events as u32,
        u64: token,
    }
}

impl Epoll {
    pub(crate) fn new() -> io::Result<Epoll> {
        // SAFETY: epoll_create1 takes no pointers; a non-negative result is a new descriptor
        // that nothing else owns.
        let fd = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        // SAFETY: `fd` was just created and is owned here alone.
        Ok(Epoll {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    fn ctl(&self, op: libc::c_int, fd: RawFd, ev: Option<libc::epoll_event>) -> io::Result<()> {
        let mut ev = ev.unwrap_or(libc::epoll_event { events: 0, u64: 0 });
        // SAFETY: `ev` is a valid epoll_event for the duration of the call; the kernel checks
        // both descriptors.
        check(unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), op, fd, &mut ev) })?;
        Ok(())
    }

    /// Registers `fd` one-shot: after one event it stays silent until [`Epoll::rearm`].
    pub(crate) fn add_oneshot(&self, fd: RawFd, token: u64, interest: Interest) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_ADD, fd, Some(event(token, interest, true)))
    }

    /// Registers `fd` level-triggered and not one-shot: every waiter sees it while it is
    /// readable (the stop signal).
    pub(crate) fn add_level(&self, fd: &impl AsRawFd, token: u64) -> io::Result<()> {
        self.ctl(
            libc::EPOLL_CTL_ADD,
            fd.as_raw_fd(),
            Some(event(token, Interest::Read, false)),
        )
    }

    /// Arms a one-shot registration again, for `interest`.
    pub(crate) fn rearm(&self, fd: &impl AsRawFd, token: u64, interest: Interest) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_MOD, fd.as_raw_fd(), Some(event(token, interest, true)))
    }

    /// Removes a registration (before its socket is closed: a duplicate of the descriptor,
    /// such as the watchdog's, would keep it registered).
    pub(crate) fn remove(&self, fd: &impl AsRawFd) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_DEL, fd.as_raw_fd(), None)
    }

    /// Waits up to `timeout` for one event; its token, or `None` on time-out.
    pub(crate) fn wait_one(&self, timeout: Duration) -> io::Result<Option<u64>> {
        let mut ev = libc::epoll_event { events: 0, u64: 0 };
        let ms = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
        loop {
            // SAFETY: `ev` has room for the one event asked for.
            let n = unsafe { libc::epoll_wait(self.fd.as_raw_fd(), &mut ev, 1, ms) };
            match check(n) {
                Ok(0) => return Ok(None),
                Ok(_) => return Ok(Some(ev.u64)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

/// An eventfd: a readable descriptor once [`EventFd::signal`] is called (never read back,
/// so it stays readable and wakes every waiter).
#[derive(Debug)]
pub(crate) struct EventFd {
    fd: OwnedFd,
}

impl EventFd {
    pub(crate) fn new() -> io::Result<EventFd> {
        // SAFETY: no pointers; a non-negative result is a new descriptor owned here alone.
        let fd = check(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) })?;
        // SAFETY: as above.
        Ok(EventFd {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    pub(crate) fn signal(&self) -> io::Result<()> {
        let one: u64 = 1;
        // SAFETY: writes the 8 bytes of `one`, which outlives the call.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
        if n == 8 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

impl AsRawFd for EventFd {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
