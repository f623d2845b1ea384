//! TEMPORARY stand-in, replaced by the bounded decoder from branch `sse`.

#[derive(Debug)]
pub enum SseError {
    EventTooLarge { limit: usize },
}

impl std::fmt::Display for SseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SseError::EventTooLarge { limit } => write!(
                f,
                "an event is larger than {limit} bytes (--max-event-bytes)"
            ),
        }
    }
}

pub struct SseEvent {
    pub data: String,
    pub invalid_utf8: bool,
}

pub struct SseDecoder {
    limit: usize,
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    failed: bool,
}

impl SseDecoder {
    pub fn new(limit: usize) -> SseDecoder {
        SseDecoder {
            limit,
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            failed: false,
        }
    }

    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if self.failed {
            return Err(SseError::EventTooLarge { limit: self.limit });
        }
        for &b in bytes {
            if b == b'\n' {
                let mut line = std::mem::take(&mut self.line);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.line_done(&line, out);
            } else {
                self.line.push(b);
                if self.line.len() + self.data.len() > self.limit {
                    self.failed = true;
                    return Err(SseError::EventTooLarge { limit: self.limit });
                }
            }
        }
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if self.has_data {
                let data = std::mem::take(&mut self.data);
                let invalid_utf8 = std::str::from_utf8(&data).is_err();
                out.push(SseEvent {
                    data: String::from_utf8_lossy(&data).into_owned(),
                    invalid_utf8,
                });
                self.has_data = false;
            }
            return;
        }
        if let Some(rest) = line.strip_prefix(b"data:") {
            let rest = rest.strip_prefix(b" ").unwrap_or(rest);
            if self.has_data {
                self.data.push(b'\n');
            }
            self.data.extend_from_slice(rest);
            self.has_data = true;
        }
    }

    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        self.feed(b"\n\n", out)
    }
}
