//! kube's complaints about the configuration and the credentials, said
//! with the file, the context and the user they are about.

use kube::config::KubeconfigError;

use super::Target;
use crate::follow::error::FollowError;

/// kube's complaint about the configuration, with where it is.
pub(super) fn config_error(e: KubeconfigError, target: &Target) -> FollowError {
    let source = &target.source;
    FollowError::Config(match e {
        KubeconfigError::LoadCertificateAuthority(e) => {
            format!("{source}: cannot load the certificate-authority: {e}")
        }
        KubeconfigError::ParseCertificates(e) => {
            format!("{source}: the certificate-authority is not PEM certificates: {e}")
        }
        KubeconfigError::LoadClientCertificate(e) => format!(
            "{source}: cannot load the client certificate of user {}: {e}",
            target.user
        ),
        KubeconfigError::LoadClientKey(e) => format!(
            "{source}: cannot load the client key of user {}: {e}",
            target.user
        ),
        KubeconfigError::ParseClusterUrl(e) => {
            format!(
                "{source}: the server address {} is not a URL: {e}",
                target.server
            )
        }
        KubeconfigError::ParseProxyUrl(e) => format!("{source}: the proxy URL is not a URL: {e}"),
        other => format!("{source}: {other}"),
    })
}

/// kube's complaint when building the client (credentials, TLS set-up).
pub(super) fn build_error(e: kube::Error, target: &Target) -> FollowError {
    use kube::client::AuthError;
    let user = &target.user;
    let plugin = format!(
        "the exec credential plugin \"{}\" of user {user}",
        target.exec.as_deref().unwrap_or("")
    );
    FollowError::Config(match e {
        kube::Error::Auth(AuthError::AuthExecStart(io)) => format!("cannot run {plugin}: {io}"),
        kube::Error::Auth(AuthError::AuthExecRun { out, .. }) => {
            let said = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            format!(
                "{plugin} failed ({}): {}",
                out.status,
                if said.is_empty() {
                    "it wrote nothing on stderr"
                } else {
                    &said
                }
            )
        }
        kube::Error::Auth(AuthError::AuthExecParse(e)) => {
            format!("{plugin} printed something that is not an ExecCredential: {e}")
        }
        kube::Error::Auth(AuthError::ExecPluginFailed) => {
            format!("{plugin} printed an ExecCredential without a status")
        }
        kube::Error::Auth(AuthError::ReadTokenFile(io, path)) => format!(
            "cannot read the token file {} of user {user}: {io}",
            path.display()
        ),
        kube::Error::InferKubeconfig(e) => return config_error(e, target),
        other => format!(
            "{}: cannot set up the client for user {user}: {other}",
            target.source
        ),
    })
}
