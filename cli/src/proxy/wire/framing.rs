//! Where an HTTP/1.1 response body ends (RFC 9112 6): a length, chunked
//! coding, or the connection's close. Sans-IO: bytes in, body bytes out.
//!
//! Every state is bounded: a chunk-size line (with its extensions) and
//! the trailer section have a size limit, so a hostile upstream cannot
//! make the decoder hold more than a few KiB besides the body it passes.

#[cfg(test)]
use bytes::BytesMut;

/// The longest chunk-size line, extensions included.
const MAX_SIZE_LINE: usize = 4 << 10;
/// The most trailer-section bytes read (and dropped).
const MAX_TRAILERS: usize = 64 << 10;

/// Why a body cannot be read.
#[derive(Debug, PartialEq, Eq)]
pub enum FramingError {
    /// A chunk-size line that is not a hex size (or one too large).
    BadChunkSize,
    /// A chunk's data not followed by its line end.
    BadChunkEnd,
    /// A chunk-size line or trailer section past its bound.
    TooLong,
}

impl std::fmt::Display for FramingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FramingError::BadChunkSize => "invalid chunk size in chunked body",
            FramingError::BadChunkEnd => "chunk data not followed by CRLF in chunked body",
            FramingError::TooLong => "chunk-size line or trailers too long in chunked body",
        })
    }
}

/// How the body's end is known.
#[derive(Debug)]
pub enum Framing {
    /// `Content-Length`: this many bytes are left.
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked(Chunked),
    /// Neither: the body ends when the connection does.
    Close,
}

/// Where the chunked decoder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunked {
    /// In a chunk-size line: the size so far, hex digits read, whether
    /// the digits ended (whitespace or an extension follows), line bytes.
    Size {
        size: u64,
        digits: u8,
        after_digits: bool,
        line: usize,
    },
    /// In a chunk's data: this many bytes are left.
    Data(u64),
    /// After a chunk's data: its CR (or a bare LF) comes next.
    DataEnd,
    /// After a chunk's data and CR: the LF.
    DataLf,
    /// In the trailer section after the last chunk: bytes read, whether
    /// the current line is empty so far.
    Trailers { read: usize, line_empty: bool },
    /// The body is complete.
    Done,
}

impl Chunked {
    fn start() -> Chunked {
        Chunked::Size {
            size: 0,
            digits: 0,
            after_digits: false,
            line: 0,
        }
    }
}

impl Framing {
    pub fn chunked() -> Framing {
        Framing::Chunked(Chunked::start())
    }

    /// The body has all its bytes (never for `Close`: only the
    /// connection's end says so).
    pub fn is_done(&self) -> bool {
        matches!(self, Framing::Length(0) | Framing::Chunked(Chunked::Done))
    }

    /// Reads `buf` as far as it goes, in place: the body bytes it holds
    /// are moved to its front. Returns how many bytes were read (all of
    /// them unless the body ended inside `buf`) and how many body bytes
    /// are now at the front.
    pub fn decode_in_place(&mut self, buf: &mut [u8]) -> Result<(usize, usize), FramingError> {
        match self {
            Framing::Close => Ok((buf.len(), buf.len())),
            Framing::Length(left) => {
                let take = buf.len().min(usize::try_from(*left).unwrap_or(usize::MAX));
                *left -= take as u64;
                Ok((take, take))
            }
            Framing::Chunked(state) => decode_chunked(state, buf),
        }
    }

    /// [`decode_in_place`](Framing::decode_in_place) of a copy of `input`,
    /// the body bytes appended to `out`; returns the bytes read.
    #[cfg(test)]
    pub fn decode(&mut self, input: &[u8], out: &mut BytesMut) -> Result<usize, FramingError> {
        let start = out.len();
        out.extend_from_slice(input);
        let (used, body) = self.decode_in_place(&mut out[start..])?;
        out.truncate(start + body);
        Ok(used)
    }
}

fn decode_chunked(state: &mut Chunked, buf: &mut [u8]) -> Result<(usize, usize), FramingError> {
    let (mut at, mut body) = (0, 0);
    while at < buf.len() {
        match state {
            Chunked::Data(left) => {
                let take = (buf.len() - at).min(usize::try_from(*left).unwrap_or(usize::MAX));
                buf.copy_within(at..at + take, body);
                at += take;
                body += take;
                *left -= take as u64;
                if *left == 0 {
                    *state = Chunked::DataEnd;
                }
            }
            Chunked::Done => break,
            _ => {
                step(state, buf[at])?;
                at += 1;
            }
        }
    }
    Ok((at, body))
}

/// One byte of the framing around the data.
fn step(state: &mut Chunked, byte: u8) -> Result<(), FramingError> {
    match state {
        Chunked::Size {
            size,
            digits,
            after_digits,
            line,
        } => {
            *line += 1;
            if *line > MAX_SIZE_LINE {
                return Err(FramingError::TooLong);
            }
            match byte {
                b'\n' if *digits > 0 => {
                    *state = match *size {
                        0 => Chunked::Trailers {
                            read: 0,
                            line_empty: true,
                        },
                        size => Chunked::Data(size),
                    };
                }
                b'\n' => return Err(FramingError::BadChunkSize),
                _ if *after_digits => {}
                _ => match hex(byte) {
                    Some(value) => {
                        // 16 hex digits fill a u64; more is no real size.
                        if *digits == 16 {
                            return Err(FramingError::BadChunkSize);
                        }
                        *size = *size << 4 | u64::from(value);
                        *digits += 1;
                    }
                    // The size ends at whitespace, an extension or CR.
                    None if *digits > 0 && matches!(byte, b' ' | b'\t' | b';' | b'\r') => {
                        *after_digits = true;
                    }
                    None => return Err(FramingError::BadChunkSize),
                },
            }
        }
        Chunked::DataEnd => match byte {
            b'\r' => *state = Chunked::DataLf,
            b'\n' => *state = Chunked::start(),
            _ => return Err(FramingError::BadChunkEnd),
        },
        Chunked::DataLf => match byte {
            b'\n' => *state = Chunked::start(),
            _ => return Err(FramingError::BadChunkEnd),
        },
        Chunked::Trailers { read, line_empty } => {
            *read += 1;
            if *read > MAX_TRAILERS {
                return Err(FramingError::TooLong);
            }
            match byte {
                b'\n' if *line_empty => *state = Chunked::Done,
                b'\n' => *line_empty = true,
                b'\r' => {}
                _ => *line_empty = false,
            }
        }
        Chunked::Data(_) | Chunked::Done => {}
    }
    Ok(())
}

fn hex(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The body decoded from `wire` fed in pieces cut at `cuts`; the bytes
    /// left after the body's end.
    fn decode(
        mut framing: Framing,
        wire: &[u8],
        cuts: &[usize],
    ) -> (Result<Vec<u8>, FramingError>, usize) {
        let mut out = BytesMut::new();
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (wire.len() + 1)).collect();
        bounds.push(wire.len());
        bounds.sort_unstable();
        let mut at = 0;
        for end in bounds {
            if end <= at {
                continue;
            }
            let piece = &wire[at..end];
            match framing.decode(piece, &mut out) {
                Ok(used) => {
                    at += used;
                    if used < piece.len() {
                        break;
                    }
                }
                Err(e) => return (Err(e), 0),
            }
        }
        let left = wire.len() - at;
        assert!(framing.is_done() || matches!(framing, Framing::Close) || left == 0);
        (Ok(out.to_vec()), left)
    }

    fn chunked(body: &[&[u8]]) -> Vec<u8> {
        let mut wire = Vec::new();
        for piece in body {
            wire.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
            wire.extend_from_slice(piece);
            wire.extend_from_slice(b"\r\n");
        }
        wire.extend_from_slice(b"0\r\n\r\n");
        wire
    }

    #[test]
    fn chunks_with_extensions_trailers_and_bare_lf() {
        let wire = b"5;name=value\r\nhello\r\n6 \r\n world\n0\r\nx-trailer: 1\r\n\r\nNEXT";
        let (body, left) = decode(Framing::chunked(), wire, &[]);
        assert_eq!(body.unwrap(), b"hello world");
        assert_eq!(left, 4, "bytes past the body are not used");
    }

    #[test]
    fn upper_case_hex_and_leading_zeros() {
        let wire = b"000A\r\n0123456789\r\n0\r\n\r\n";
        assert_eq!(
            decode(Framing::chunked(), wire, &[]).0.unwrap(),
            b"0123456789"
        );
    }

    #[test]
    fn bad_framing_is_an_error() {
        for wire in [
            &b"zz\r\n"[..],
            b"\r\n",
            b"5\r\nhelloX",
            b"5\r\nhello\rX",
            b"11111111111111111\r\n",
            b";ext\r\n",
        ] {
            assert!(decode(Framing::chunked(), wire, &[]).0.is_err(), "{wire:?}");
        }
        let long = [b"1;".as_slice(), &[b'x'; MAX_SIZE_LINE]].concat();
        assert_eq!(
            decode(Framing::chunked(), &long, &[]).0,
            Err(FramingError::TooLong)
        );
        let trailers = [b"0\r\n".as_slice(), &[b'x'; MAX_TRAILERS + 1]].concat();
        assert_eq!(
            decode(Framing::chunked(), &trailers, &[]).0,
            Err(FramingError::TooLong)
        );
    }

    #[test]
    fn a_length_stops_at_its_end() {
        let (body, left) = decode(Framing::Length(5), b"helloEXTRA", &[2]);
        assert_eq!(body.unwrap(), b"hello");
        assert_eq!(left, 5);
    }

    #[test]
    fn an_unfinished_chunked_body_is_not_done() {
        let mut framing = Framing::chunked();
        let mut out = BytesMut::new();
        framing.decode(b"5\r\nhel", &mut out).unwrap();
        assert!(!framing.is_done());
        assert_eq!(&out[..], b"hel");
    }

    proptest! {
        #[test]
        fn any_split_gives_the_same_body(
            pieces in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..40), 0..8),
            cuts in proptest::collection::vec(any::<usize>(), 0..12),
        ) {
            let slices: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
            let wire = chunked(&slices);
            let (body, left) = decode(Framing::chunked(), &wire, &cuts);
            prop_assert_eq!(body.unwrap(), pieces.concat());
            prop_assert_eq!(left, 0);
        }

        #[test]
        fn no_input_panics(wire in proptest::collection::vec(any::<u8>(), 0..200), cuts in proptest::collection::vec(any::<usize>(), 0..6)) {
            let _ = decode(Framing::chunked(), &wire, &cuts);
        }
    }
}
