//! A TCP proxy on loopback that injects network faults between a client and a server: in
//! `Pass` it forwards bytes both ways; in `Reset` it closes every connection, open or new
//! (connection errors); in `Stall` it holds connections open and forwards nothing (timeouts).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the proxy does with traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Fault {
    /// Forward everything.
    Pass = 0,
    /// Close every connection.
    Reset = 1,
    /// Forward nothing, close nothing.
    Stall = 2,
}

/// A running proxy; stopped on drop.
pub struct FaultProxy {
    /// Its port on 127.0.0.1.
    pub port: u16,
    mode: Arc<AtomicU8>,
    stop: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl FaultProxy {
    /// Proxies 127.0.0.1:`target`.
    pub fn start(target: u16) -> std::io::Result<FaultProxy> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        listener.set_nonblocking(true)?;
        let (mode, stop) = (Arc::new(AtomicU8::new(0)), Arc::new(AtomicBool::new(false)));
        let open = Arc::new(Mutex::new(Vec::new()));
        let (m, s, o) = (mode.clone(), stop.clone(), open.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((client, _)) => {
                        let _ = client.set_nonblocking(false);
                        if m.load(Ordering::Relaxed) == Fault::Reset as u8 {
                            let _ = client.shutdown(Shutdown::Both);
                            continue;
                        }
                        let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                            continue;
                        };
                        if let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) {
                            let mut held = o.lock().unwrap_or_else(|e| e.into_inner());
                            held.push(c2);
                            held.push(s2);
                        }
                        pump(client.try_clone(), server.try_clone(), m.clone());
                        pump(server.try_clone(), client.try_clone(), m.clone());
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Ok(FaultProxy { port, mode, stop, open })
    }

    /// Switches the fault; `Reset` also closes every open connection.
    pub fn set(&self, fault: Fault) {
        self.mode.store(fault as u8, Ordering::Relaxed);
        if fault == Fault::Reset {
            for s in self.open.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
                let _ = s.shutdown(Shutdown::Both);
            }
        }
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.set(Fault::Reset);
    }
}

/// Copies `from` to `to` on a thread, holding bytes back while stalled.
fn pump(from: std::io::Result<TcpStream>, to: std::io::Result<TcpStream>, mode: Arc<AtomicU8>) {
    let (Ok(mut from), Ok(mut to)) = (from, to) else {
        return;
    };
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            while mode.load(Ordering::Relaxed) == Fault::Stall as u8 {
                std::thread::sleep(Duration::from_millis(5));
            }
            if mode.load(Ordering::Relaxed) == Fault::Reset as u8 || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}
