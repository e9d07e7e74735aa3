//! Loopback ports for the command targets the suite starts.
//!
//! A port is chosen and checked free by binding it and closing the socket again; the command then
//! binds the port itself. Between the two, another socket may take it. The kernel hands out ports
//! from its ephemeral range (`net.ipv4.ip_local_port_range`) to every `bind` of port 0 and every
//! outgoing connection of every process, so a port chosen there can be taken by any connection made
//! meanwhile (a parallel test's client, say), and the command then fails with "Address already in
//! use". Ports are therefore chosen below that range, where the kernel hands out nothing by
//! itself, when the range leaves room (see [`chosen_range`]); and at most once among the last
//! [`REMEMBERED`] handed out by this process, so two targets started at once (parallel tests of a
//! Rust webhook author) are never told to listen on the same one.

use std::collections::VecDeque;
use std::sync::Mutex;

/// How many of the ports handed out last are never handed out again.
const REMEMBERED: usize = 1024;
/// How many ports the kernel is asked for before giving up.
const ATTEMPTS: usize = 64;

static HANDED_OUT: Mutex<VecDeque<u16>> = Mutex::new(VecDeque::new());

/// How many ports below the ephemeral range are chosen from.
const SPAN: u16 = 16384;
/// The lowest port chosen: ports below are often those of well-known services.
const LOWEST: u16 = 1024;

/// A free TCP port on loopback that this process has not handed out recently.
pub(crate) fn free_port() -> std::io::Result<u16> {
    let mut book = HANDED_OUT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    match chosen_range(ephemeral_low()) {
        Some(range) => first_new(&mut book, || bound_in(range.clone()).map_or_else(kernel_port, Ok)),
        None => first_new(&mut book, kernel_port),
    }
}

/// The lowest port of the kernel's ephemeral range, where it can be read.
fn ephemeral_low() -> Option<u16> {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The ports chosen from: the [`SPAN`] ports just below the ephemeral range starting at `low`, from
/// [`LOWEST`] up; `None` (let the kernel choose) when the range is unknown or leaves under 1024.
fn chosen_range(low: Option<u16>) -> Option<std::ops::Range<u16>> {
    let low = low?;
    let start = low.saturating_sub(SPAN).max(LOWEST);
    (low > start && low - start >= 1024).then_some(start..low)
}

/// A port of `range` that binds on loopback now, if one of a few random ones does (random, so
/// that processes choosing at once choose apart).
fn bound_in(range: std::ops::Range<u16>) -> Option<u16> {
    use std::hash::{BuildHasher, Hasher};
    // Each RandomState has new keys (seeded from the OS once per thread, then stepped): its hash
    // of nothing is a number no other call or process repeats in practice.
    let width = u64::from(range.end - range.start);
    for _ in 0..8 {
        let random = std::collections::hash_map::RandomState::new().build_hasher().finish();
        let port = range.start + (random % width) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Some(port);
        }
    }
    None
}

/// Port 0 bound on loopback and released: the port the kernel chose.
fn kernel_port() -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// The first port from `next` that is not in `book`, noted in it.
fn first_new(book: &mut VecDeque<u16>, mut next: impl FnMut() -> std::io::Result<u16>) -> std::io::Result<u16> {
    for _ in 0..ATTEMPTS {
        let port = next()?;
        if !book.contains(&port) {
            if book.len() == REMEMBERED {
                book.pop_front();
            }
            book.push_back(port);
            return Ok(port);
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AddrInUse,
        format!("the kernel offered only ports already handed out, {ATTEMPTS} times"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offers(ports: &[u16]) -> impl FnMut() -> std::io::Result<u16> + '_ {
        let mut it = ports.iter();
        move || Ok(*it.next().expect("enough offers"))
    }

    #[test]
    fn ports_are_chosen_below_the_ephemeral_range_where_it_leaves_room() {
        assert_eq!(chosen_range(Some(32768)), Some(16384..32768));
        assert_eq!(chosen_range(Some(10000)), Some(1024..10000));
        // Too little room below, or the range unknown: the kernel chooses.
        assert_eq!(chosen_range(Some(1500)), None);
        assert_eq!(chosen_range(Some(1024)), None);
        assert_eq!(chosen_range(None), None);
    }

    #[test]
    fn a_chosen_port_is_free_and_outside_the_ephemeral_range() {
        let Some(range) = chosen_range(ephemeral_low()) else { return };
        let port = free_port().unwrap();
        assert!(range.contains(&port), "{port} not in {range:?}");
        // Held by a listener, no port of a one-port range binds.
        let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let p = held.local_addr().unwrap().port();
        assert_eq!(bound_in(p..p + 1), None);
    }

    #[test]
    fn a_port_the_kernel_offers_again_is_not_handed_out_twice() {
        let mut book = VecDeque::new();
        let mut kernel = offers(&[41000, 41000, 41000, 41001]);
        assert_eq!(first_new(&mut book, &mut kernel).unwrap(), 41000);
        assert_eq!(first_new(&mut book, &mut kernel).unwrap(), 41001);
    }

    #[test]
    fn only_the_last_ports_are_remembered() {
        let mut book = VecDeque::new();
        let first: Vec<u16> = (0..REMEMBERED as u16).map(|i| 20000 + i).collect();
        for &p in &first {
            assert_eq!(first_new(&mut book, offers(&[p])).unwrap(), p);
        }
        // The book is full: the oldest port is forgotten when a new one is noted, then offered again.
        assert_eq!(first_new(&mut book, offers(&[19999])).unwrap(), 19999);
        assert_eq!(first_new(&mut book, offers(&[20000])).unwrap(), 20000);
        assert_eq!(book.len(), REMEMBERED);
    }

    #[test]
    fn a_kernel_that_offers_nothing_new_is_an_error() {
        let mut book = VecDeque::from([41000]);
        let err = first_new(&mut book, || Ok(41000)).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse);
    }

    #[test]
    fn ports_handed_out_at_once_differ() {
        let ports: Vec<u16> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16).map(|_| s.spawn(|| free_port().unwrap())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut unique = ports.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ports.len(), "{ports:?}");
    }
}
