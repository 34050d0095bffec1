//! A small HTTP/1.1 server on the loopback address, for the tests of what sitemapgen fetches
//! and posts: each request is recorded and answered by the test's handler, on a connection
//! of its own that is closed after the answer. Requests are bounded (head and body).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub enum Reply {
    Answer {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// 200 with `Content-Length: announced` (if any), then `length` zero bytes.
    Zeros { announced: Option<u64>, length: u64 },
    /// No answer: the connection stays open this long.
    Silence(Duration),
    /// As a proxy answers CONNECT: the connection is joined to `to`, whatever was asked.
    Tunnel(SocketAddr),
}

impl Reply {
    pub fn status(status: u16, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Answer {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Answer { headers, .. } = &mut self {
            headers.push((name.to_string(), value.to_string()));
        }
        self
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

pub struct Server {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl Server {
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the loopback address");
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (seen, stopped) = (requests.clone(), stop.clone());
        thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (handler, seen) = (handler.clone(), seen.clone());
                thread::spawn(move || serve(stream, &*handler, &seen));
            }
        });
        Server {
            addr,
            requests,
            stop,
        }
    }

    /// A server of the files under `dir` (a deployed site): 404 for anything else.
    pub fn files(dir: PathBuf) -> Server {
        Server::start(move |request| {
            let rel = request.path.trim_start_matches('/');
            let path = dir.join(rel.split('?').next().unwrap_or_default());
            // As a web server types them: a browser applies a stylesheet to XML only.
            let xml = path
                .extension()
                .is_some_and(|ext| ext == "xml" || ext == "xsl");
            match std::fs::read(&path) {
                Ok(bytes) if path.is_file() && xml => {
                    Reply::status(200, bytes).with_header("Content-Type", "text/xml")
                }
                Ok(bytes) if path.is_file() => Reply::status(200, bytes),
                _ => Reply::status(404, "not found"),
            }
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread to see the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(stream: TcpStream, handler: &Handler, seen: &Mutex<Vec<Request>>) {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let Some(request) = read_request(&stream) else {
        return;
    };
    seen.lock().unwrap().push(request.clone());
    let mut out = stream;
    // The client may hang up first: that is its right.
    let _ = match handler(&request) {
        Reply::Answer {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} Status\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            out.write_all(head.as_bytes())
                .and_then(|()| out.write_all(&body))
        }
        Reply::Zeros { announced, length } => {
            let mut head = "HTTP/1.1 200 OK\r\nConnection: close\r\n".to_string();
            if let Some(announced) = announced {
                head.push_str(&format!("Content-Length: {announced}\r\n"));
            }
            head.push_str("\r\n");
            let chunk = vec![0; 1 << 16];
            let mut left = length;
            out.write_all(head.as_bytes()).and_then(|()| {
                while left > 0 {
                    let n = left.min(chunk.len() as u64) as usize;
                    out.write_all(&chunk[..n])?;
                    left -= n as u64;
                }
                Ok(())
            })
        }
        Reply::Silence(time) => {
            thread::sleep(time);
            Ok(())
        }
        Reply::Tunnel(to) => out
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .and_then(|()| {
                let there = TcpStream::connect(to)?;
                let (mut back, mut from) = (there.try_clone()?, out.try_clone()?);
                let relay = thread::spawn(move || std::io::copy(&mut back, &mut out));
                let mut there = there;
                std::io::copy(&mut from, &mut there)?;
                let _ = there.shutdown(std::net::Shutdown::Write);
                relay.join().unwrap().map(drop)
            }),
    };
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.take(1 << 20));
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}
