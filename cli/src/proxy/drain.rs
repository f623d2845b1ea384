//! Reading what is left of a body, to drop it, within a time and a size.

use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};

/// Reads `pieces` to their end, holding none of them, for at most `time`
/// and about `bytes` bytes; stops at the first error.
pub async fn drain<E>(
    mut pieces: impl Stream<Item = Result<Bytes, E>> + Unpin,
    time: Duration,
    bytes: usize,
) {
    let mut drained = 0;
    let _ = tokio::time::timeout(time, async {
        while let Some(Ok(piece)) = pieces.next().await {
            drained += piece.len();
            if drained > bytes {
                break;
            }
        }
    })
    .await;
}
