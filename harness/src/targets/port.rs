//! Loopback ports for the command targets the suite starts.
//!
//! A port is found by binding port 0 and closing the socket again; the command then binds the port
//! itself. Once closed, the port is free again, and the kernel may hand the same one to the next
//! caller: two targets started at once by this process (parallel tests of a Rust webhook author,
//! say) would then both be told to listen on it, and one of them would fail to start. Ports are
//! therefore handed out at most once among the last [`REMEMBERED`] handed out by this process.

use std::collections::VecDeque;
use std::sync::Mutex;

/// How many of the ports handed out last are never handed out again.
const REMEMBERED: usize = 1024;
/// How many ports the kernel is asked for before giving up.
const ATTEMPTS: usize = 64;

static HANDED_OUT: Mutex<VecDeque<u16>> = Mutex::new(VecDeque::new());

/// A free TCP port on loopback that this process has not handed out recently.
pub(crate) fn free_port() -> std::io::Result<u16> {
    let mut book = HANDED_OUT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    first_new(&mut book, kernel_port)
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
