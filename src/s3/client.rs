//! The S3 client of `--verify-s3 s3://...` (cargo feature `s3`): the official SDK, with
//! credentials, region and endpoint found as the AWS CLI finds them (`aws-config`'s default
//! chain: environment, profiles with SSO and `credential_process`, web identity, ECS and EC2
//! metadata; `AWS_PROFILE`, `AWS_REGION`, `AWS_ENDPOINT_URL` or `--endpoint-url`), and the SDK's
//! retries. HTTPS goes through rustls on ring, which fasthash has already (the SDK's default
//! brings aws-lc-rs, a C library built with cmake).
//!
//! Requests run on a tokio runtime of one thread: they wait on the network, not the CPU, and
//! the hashing keeps rayon's pool. Every failure becomes an [`S3Failure`], never a panic.
//! The runtime starts no thread of its own (its I/O and timers run on the thread that blocks
//! on it); only the SDK's name lookups would, on tokio's blocking pool, which panics when the
//! system refuses it a thread: where threads are scarce, names are looked up on the runtime's
//! thread ([`ResolveHere`]).

use super::location::S3Location;
use super::reported::{reported_from_headers, Reported};
use crate::error::{Error, S3Failure};
use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::config::{
    interceptors::BeforeDeserializationInterceptorContextRef, BehaviorVersion, ConfigBag,
    Intercept, Region, RuntimeComponents,
};
use aws_sdk_s3::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_s3::types::ChecksumMode;
use aws_smithy_runtime_api::client::dns::{DnsFuture, ResolveDns, ResolveDnsError};
use std::future::Future;
use std::sync::{Arc, Mutex};

/// S3's own region when none is configured, as the AWS CLI's S3 commands take it.
const DEFAULT_REGION: &str = "us-east-1";

/// How many requests are in flight at once for a tree: enough that 10,000 small objects are
/// not 10,000 round trips in a row, few enough not to be throttled (S3 takes thousands of
/// HEADs a second a prefix).
const IN_FLIGHT: usize = 64;

/// A client and the runtime its requests run on.
pub(crate) struct Client {
    runtime: tokio::runtime::Runtime,
    api: S3Api,
}

/// The requests: cheap to clone, so that each request in flight holds its own.
#[derive(Clone)]
pub(crate) struct S3Api {
    s3: aws_sdk_s3::Client,
    /// Where requests go, as messages name it.
    endpoint: Arc<str>,
}

/// One object's HeadObject answer, by its place in the list asked for.
pub(crate) type Answer = (usize, Result<Reported, S3Failure>);

impl Client {
    /// Finds the configuration as the AWS CLI does; a failure names `location`.
    pub(crate) fn connect(location: &S3Location, endpoint: Option<&str>) -> Result<Client, Error> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| {
                location.error(S3Failure::Other(format!("cannot start the client: {e}")))
            })?;
        let (s3, endpoint) = runtime.block_on(configure(endpoint));
        let api = S3Api {
            s3,
            endpoint: endpoint.into(),
        };
        Ok(Client { runtime, api })
    }

    /// Runs requests to their end on this client's runtime.
    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// The requests, to run with [`Client::block_on`].
    pub(crate) fn api(&self) -> &S3Api {
        &self.api
    }

    /// HeadObject of every object of `objects` (each with its place in the caller's list),
    /// [`IN_FLIGHT`] at a time, each answer handed to `answers` as it comes.
    pub(crate) fn head_all(
        &self,
        objects: Vec<(usize, S3Location)>,
        answers: std::sync::mpsc::Sender<Answer>,
    ) {
        use std::collections::HashMap;
        use tokio::task::{Id, JoinError, JoinSet};
        // A request that panicked inside the SDK: its object is not verified, with a reason.
        fn answer_of(done: Result<(Id, Answer), JoinError>, places: &HashMap<Id, usize>) -> Answer {
            match done {
                Ok((_, answer)) => answer,
                Err(error) => {
                    let place = places.get(&error.id()).copied().unwrap_or(usize::MAX);
                    let reason = format!("the S3 client failed: {error}");
                    (place, Err(S3Failure::Other(reason)))
                }
            }
        }
        self.runtime.block_on(async {
            let mut in_flight = JoinSet::new();
            let mut places = HashMap::new();
            for (place, location) in objects {
                if in_flight.len() >= IN_FLIGHT {
                    if let Some(done) = in_flight.join_next_with_id().await {
                        // The receiver goes only when the run does.
                        let _ = answers.send(answer_of(done, &places));
                    }
                }
                let api = self.api.clone();
                let handle =
                    in_flight.spawn(async move { (place, api.head_object(&location).await) });
                places.insert(handle.id(), place);
            }
            while let Some(done) = in_flight.join_next_with_id().await {
                let _ = answers.send(answer_of(done, &places));
            }
        });
    }
}

impl S3Api {
    /// What S3 reports for the object: HeadObject with its checksums, and for an object of
    /// parts, HeadObject of part 1 for the part size and count.
    pub(crate) async fn head_object(&self, location: &S3Location) -> Result<Reported, S3Failure> {
        let mut reported = self.head(location, None).await?;
        if reported.size.is_some_and(|size| size > 0) && looks_multipart(&reported) {
            let first = self.head(location, Some(1)).await?;
            reported.parts_count = reported.parts_count.or(first.parts_count);
            // A single part's answer gives the whole object's length and no part count.
            if first.parts_count.is_some() {
                reported.part_sizes = first.size.into_iter().collect();
            }
        }
        Ok(reported)
    }

    /// One HeadObject, read from its response headers. Its errors have no body: a 403 or
    /// 404 is told apart by a listing, which has one.
    async fn head(
        &self,
        location: &S3Location,
        part_number: Option<i32>,
    ) -> Result<Reported, S3Failure> {
        let headers = Arc::new(Mutex::new(Vec::new()));
        let request = self
            .s3
            .head_object()
            .bucket(&location.bucket)
            .key(&location.key)
            .set_part_number(part_number)
            // With a part number S3 gives that part's checksum, which is not wanted.
            .set_checksum_mode(part_number.is_none().then_some(ChecksumMode::Enabled));
        let sent = request
            .customize()
            .interceptor(KeepHeaders(headers.clone()))
            .send()
            .await;
        match sent {
            Ok(_) => {
                let headers = headers.lock().map(|h| h.clone()).unwrap_or_default();
                reported_from_headers(headers.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                    .map_err(|reason| {
                        S3Failure::Other(format!("S3's answer is unusable: {reason}"))
                    })
            }
            Err(error) => {
                let status = error.raw_response().map(|r| r.status().as_u16());
                match status {
                    Some(403 | 404) => Err(self.why_not_found(location, status).await),
                    _ => Err(self.failure(error)),
                }
            }
        }
    }

    /// Why HeadObject answered 403 or 404 without a word: a listing of the key says whether
    /// the bucket is there and the credentials are good.
    async fn why_not_found(&self, location: &S3Location, status: Option<u16>) -> S3Failure {
        let listed = self.listing(location).max_keys(1).send().await;
        match (listed, status) {
            (Err(error), _) => self.failure(error),
            (Ok(_), Some(404)) => S3Failure::NoSuchKey,
            (Ok(_), _) => S3Failure::AccessDenied,
        }
    }

    /// A ListObjectsV2 request of the keys that start with `location`'s key.
    fn listing(
        &self,
        location: &S3Location,
    ) -> aws_sdk_s3::operation::list_objects_v2::builders::ListObjectsV2FluentBuilder {
        let request = self.s3.list_objects_v2().bucket(&location.bucket);
        request.prefix(&location.key)
    }

    /// The key of every object under `location`'s prefix, page after page, in S3's order.
    /// Keys ending in `/` are folders of the S3 console, not files.
    pub(crate) async fn list(&self, location: &S3Location) -> Result<Vec<String>, S3Failure> {
        let mut objects = Vec::new();
        let mut token = None;
        loop {
            let page = self
                .listing(location)
                .set_continuation_token(token)
                .send()
                .await
                .map_err(|e| self.failure(e))?;
            let keys = page.contents().iter().filter_map(|object| object.key());
            objects.extend(keys.filter(|key| !key.ends_with('/')).map(str::to_string));
            token = page.next_continuation_token().map(str::to_string);
            if token.is_none() || page.is_truncated() == Some(false) {
                return Ok(objects);
            }
        }
    }

    /// An SDK error in the kinds a user acts on.
    fn failure<E>(&self, error: SdkError<E, HttpResponse>) -> S3Failure
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        if let Some(reason) = credentials_missing(&error) {
            return S3Failure::NoCredentials(reason);
        }
        match &error {
            SdkError::TimeoutError(_) => S3Failure::Unreachable {
                endpoint: self.endpoint.to_string(),
                reason: "timed out".into(),
            },
            SdkError::DispatchFailure(failure) if failure.is_io() || failure.is_timeout() => {
                S3Failure::Unreachable {
                    endpoint: self.endpoint.to_string(),
                    reason: innermost_reason(&error),
                }
            }
            SdkError::ServiceError(context) => {
                let response = context.raw();
                let region = response.headers().get("x-amz-bucket-region");
                service_failure(
                    context.err(),
                    response.status().as_u16(),
                    region.map(str::to_string),
                )
            }
            _ => S3Failure::Other(DisplayErrorContext(&error).to_string()),
        }
    }
}

/// S3's refusal, by its error code (and the HTTP status where the code is missing).
fn service_failure(
    error: &impl ProvideErrorMetadata,
    status: u16,
    region: Option<String>,
) -> S3Failure {
    match (error.code(), status) {
        (Some("NoSuchBucket"), _) => S3Failure::NoSuchBucket,
        (Some("NoSuchKey"), _) => S3Failure::NoSuchKey,
        (
            Some(
                code @ ("InvalidAccessKeyId"
                | "SignatureDoesNotMatch"
                | "ExpiredToken"
                | "InvalidToken"
                | "TokenRefreshRequired"),
            ),
            _,
        ) => S3Failure::BadCredentials(code.to_string()),
        (Some("PermanentRedirect" | "AuthorizationHeaderMalformed"), _) | (_, 301) => {
            S3Failure::WrongRegion(region)
        }
        (Some("AccessDenied"), _) | (None, 403) => S3Failure::AccessDenied,
        (code, status) => {
            let code = code.unwrap_or("error");
            match error.message() {
                Some(message) => S3Failure::Other(format!("{code} (HTTP {status}): {message}")),
                None => S3Failure::Other(format!("{code} (HTTP {status})")),
            }
        }
    }
}

/// The SDK's reason when no credentials were found anywhere.
fn credentials_missing<E>(error: &SdkError<E, HttpResponse>) -> Option<String>
where
    E: std::error::Error + 'static,
{
    use aws_credential_types::provider::error::CredentialsError;
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = source {
        if let Some(CredentialsError::CredentialsNotLoaded(_)) = error.downcast_ref() {
            return Some("the SDK's chain of providers found none".into());
        }
        source = error.source();
    }
    None
}

/// The last reason in an error's chain: the connection's own words (`Connection refused`).
fn innermost_reason(error: &dyn std::error::Error) -> String {
    let mut reason = error.to_string();
    let mut source = error.source();
    while let Some(error) = source {
        reason = error.to_string();
        source = error.source();
    }
    reason
}

/// Whether the object was uploaded in parts, by its values' `-N`, or a COMPOSITE type
/// (Amazon S3 gives the `-N`; some S3-compatible servers give only the type).
fn looks_multipart(reported: &Reported) -> bool {
    reported.checksum_type.as_deref() == Some("COMPOSITE") || reported.part_count().is_some()
}

/// The SDK's configuration and client, and the endpoint as messages name it. A custom
/// endpoint (an S3-compatible server) is addressed by path (`http://host/bucket/key`), which
/// every such server takes, where S3 itself puts the bucket in the host name.
async fn configure(endpoint: Option<&str>) -> (aws_sdk_s3::Client, String) {
    use aws_smithy_http_client::tls;
    let builder = aws_smithy_http_client::Builder::new().tls_provider(tls::Provider::Rustls(
        tls::rustls_provider::CryptoMode::Ring,
    ));
    let https = match crate::io::parallel::threads_are_scarce() {
        true => builder.build_with_resolver(ResolveHere),
        false => builder.build_https(),
    };
    let mut loader = aws_config::defaults(BehaviorVersion::latest()).http_client(https);
    if let Some(url) = endpoint {
        loader = loader.endpoint_url(url);
    }
    let shared = loader.load().await;
    let mut config = aws_sdk_s3::config::Builder::from(&shared);
    if shared.region().is_none() {
        config = config.region(Region::new(DEFAULT_REGION));
    }
    let custom = shared
        .endpoint_url()
        .map(str::to_string)
        .or_else(|| std::env::var("AWS_ENDPOINT_URL_S3").ok());
    if custom.is_some() {
        config = config.force_path_style(true);
    }
    let region = shared.region().map_or(DEFAULT_REGION, |r| r.as_ref());
    let shown = custom.unwrap_or_else(|| format!("S3 in {region}"));
    (aws_sdk_s3::Client::from_conf(config.build()), shown)
}

/// Looks a name up on the thread that asks, blocking it (the runtime's one thread, where the
/// requests wait on the network anyway): for a run where threads are scarce, as the SDK's own
/// lookups take a thread of tokio's blocking pool, and tokio panics when the system refuses it
/// one. A name that is an address (`127.0.0.1`) is never looked up.
#[derive(Debug, Clone)]
struct ResolveHere;

impl ResolveDns for ResolveHere {
    fn resolve_dns<'a>(&'a self, name: &'a str) -> DnsFuture<'a> {
        use std::net::ToSocketAddrs;
        let found = (name, 0)
            .to_socket_addrs()
            .map(|addresses| addresses.map(|address| address.ip()).collect())
            .map_err(ResolveDnsError::new);
        DnsFuture::ready(found)
    }
}

/// Keeps a response's headers: checksums of algorithms the SDK's model may not know yet are
/// read from them (`reported::reported_from_headers`).
#[derive(Debug)]
struct KeepHeaders(Arc<Mutex<Vec<(String, String)>>>);

impl Intercept for KeepHeaders {
    fn name(&self) -> &'static str {
        "KeepHeaders"
    }

    fn read_before_deserialization(
        &self,
        context: &BeforeDeserializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), aws_sdk_s3::error::BoxError> {
        let headers = context.response().headers();
        let copied = headers.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        if let Ok(mut kept) = self.0.lock() {
            *kept = copied.collect();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipart_is_seen_in_a_suffix_or_the_type() {
        let mut reported = Reported {
            etag: Some("9652ce2a95f9a7975d166a608aabbfe1-3".into()),
            ..Reported::default()
        };
        assert!(looks_multipart(&reported));
        reported.etag = Some("9652ce2a95f9a7975d166a608aabbfe1".into());
        assert!(!looks_multipart(&reported));
        reported.checksum_type = Some("COMPOSITE".into());
        assert!(looks_multipart(&reported));
    }
}
