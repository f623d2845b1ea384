//! Finished Responses kept for `previous_response_id`.

/// One stored response: the conversation's items up to and including its
/// output.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StoredResponse {
    pub items: Vec<serde_json::Value>,
}
