//! Finished Responses kept for `previous_response_id`.

/// One stored response: the conversation's items up to and including its
/// output.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StoredResponse {
    pub items: Vec<serde_json::Value>,
}

// Placeholder until the store lands: the route's calls, answering nothing.
#[derive(Clone, Default)]
pub struct ResponseStore;

#[derive(Debug)]
pub enum StoreError {
    Unavailable(String),
    TooLarge { bytes: usize, limit: usize },
    Corrupt(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl ResponseStore {
    pub async fn get(&self, _id: &str) -> Result<Option<StoredResponse>, StoreError> {
        Ok(None)
    }
    pub async fn put(&self, _id: &str, _response: &StoredResponse) -> Result<(), StoreError> {
        Ok(())
    }
}
