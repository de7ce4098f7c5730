//! An export's JSON Lines as a streamed body, read from the store as it is sent, so that a large
//! memory holds no more than a small one; the client reading slowly slows the reading. Its
//! audit line is written when it ends, saying whether it was sent whole.

use std::net::IpAddr;

use actix_web::HttpResponse;
use actix_web::web::Bytes;
use futures_util::stream;

use crate::error_chain::ErrorChain;
use crate::transfer::{Export, TransferError};

/// Who exported what, for the audit line.
pub struct Audit {
    pub remote_ip: IpAddr,
    /// The namespace's label, or `(every namespace)`.
    pub namespace: String,
    /// An operator (`/admin/export`) or the person whose memory it is (the memory page).
    pub by: &'static str,
}

/// The export's body, its `first` line already read (so that a store failing at once was
/// answered before the status). A store failure later cannot change the status: the body ends
/// without its last chunk, which clients report as a cut transfer, and the log says why.
pub fn streamed(export: Export, first: Option<Vec<u8>>, audit: Audit) -> HttpResponse {
    let audited = Audited {
        export,
        audit,
        outcome: "client gone",
    };
    let body = stream::unfold(Some((audited, first)), |sending| async move {
        let (mut audited, first) = sending?;
        let next = match first {
            Some(line) => Ok(Some(line)),
            None => audited.export.next_line().await,
        };
        match next {
            Ok(Some(line)) => Some((Ok(Bytes::from(line)), Some((audited, None)))),
            Ok(None) => {
                audited.outcome = "complete";
                None
            }
            Err(err) => {
                tracing::error!(
                    error = %ErrorChain(&err),
                    "an export failed after it began; the client gets a cut transfer"
                );
                audited.outcome = "failed";
                Some((Err::<Bytes, TransferError>(err), None))
            }
        }
    });
    HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .streaming(body)
}

/// An export being sent. Its audit line is written when it ends, with what was sent: whole, cut
/// by a store failure, or cut because the client went away (the body is dropped then).
struct Audited {
    export: Export,
    audit: Audit,
    outcome: &'static str,
}

impl Drop for Audited {
    fn drop(&mut self) {
        let written = self.export.written();
        tracing::info!(
            audit = true,
            remote_ip = %self.audit.remote_ip,
            action = "export",
            by = self.audit.by,
            namespace = self.audit.namespace,
            outcome = self.outcome,
            threads = written.threads,
            entries = written.entries,
            profile_versions = written.profile_versions,
            "memories were exported"
        );
    }
}
