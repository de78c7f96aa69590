//! Where webhooks may go: a webhook URL parsed once by WHATWG rules (the `url` crate, the rules
//! browsers and HTTP clients follow), and the allow-list of `platform serve --webhook-allow`.
//!
//! The parser normalises what a hand-written split gets wrong: a backslash ends the authority
//! (`http://127.0.0.1:80\@localhost/` goes to 127.0.0.1), userinfo is not the host
//! (`http://localhost@127.0.0.1/`), IPv4 hosts may be written in decimal (`2130706433`), octal
//! (`0177.0.0.1`) or hex, IPv6 hosts are bracketed (`[::1]`), names are lower-cased and IDNA
//! encoded. The allow-list is checked on that parsed host, and the same parsed URL is what the
//! network client calls.
//!
//! The rule: a webhook may call any global address, and no other unless the operator opens it.
//! An address that is loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local
//! (169.254/16, fe80::/10), shared (100.64/10), multicast, unspecified, broadcast or reserved
//! is refused, whether the URL writes it as a literal (in any of the forms above, or as an
//! IPv4-mapped IPv6 address) or names a host that resolves to it:
//! - at the save, a literal address is checked ([`WebhookAllow::check_host`]), and a name is
//!   resolved and each of its addresses checked ([`WebhookAllow::check_address`]); the name
//!   `localhost` (and any name under `.localhost`) is loopback without asking (RFC 6761);
//! - when the client connects, each address the host resolves to is checked again (a name may
//!   resolve elsewhere by then): a refused address is never connected to.
//!
//! The allow-list (`--webhook-allow`) opens exactly what it lists: an address, a network
//! (`10.0.0.0/8`), or a host name (which may then resolve to any address). `any-address`
//! opens everything, for a server that runs for one company on its own network.

use crate::error::{Error, Result};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
pub use url::{Host, Url};

/// Parses a webhook URL: an http or https URL with a host.
pub fn parse_url(text: &str) -> Result<Url> {
    let url = Url::parse(text).map_err(|e| {
        Error::invalid_parameter(format!("properties.url \"{text}\" is not a valid URL: {e}"))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::invalid_parameter(format!(
            "properties.url \"{text}\" must start with http:// or https://"
        )));
    }
    if url.host().is_none() {
        return Err(Error::invalid_parameter(format!(
            "properties.url \"{text}\" has no host"
        )));
    }
    Ok(url)
}

/// A resolver of host names: `(host, port)` to the addresses a client would connect to.
pub(crate) type Resolver<'a> =
    Option<&'a dyn Fn(&str, u16) -> std::result::Result<Vec<IpAddr>, String>>;

/// No resolver: host names are checked when the client connects.
pub(crate) const NO_RESOLVER: Resolver<'static> = None;

/// Parses a webhook URL and checks its host against `allow`: a literal address as written,
/// and with a resolver each address a name resolves to now (a name that does not resolve is
/// checked when the client connects). The error says what was refused and how to allow it.
pub(crate) fn check_url(text: &str, allow: &WebhookAllow, resolve: Resolver<'_>) -> Result<Url> {
    let url = parse_url(text)?;
    let refuse =
        |why: String| Error::invalid_parameter(format!("properties.url \"{text}\": {why}"));
    let Some(host) = url.host() else {
        return Ok(url);
    };
    allow.check_host(&host).map_err(refuse)?;
    if let (Host::Domain(name), Some(resolve)) = (&host, resolve) {
        if !allow.lists_name(name) {
            let port = url.port_or_known_default().unwrap_or(80);
            for ip in resolve(name, port).unwrap_or_default() {
                allow.check_address(&host, ip).map_err(refuse)?;
            }
        }
    }
    Ok(url)
}

/// The non-global hosts and networks webhooks may call besides every global address
/// (`--webhook-allow`); the default opens none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookAllow {
    entries: Vec<Entry>,
}

/// The entry that opens every address.
pub const ANY_ADDRESS: &str = "any-address";

#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// Every address (`any-address`).
    Any,
    /// A host name, lower-case, IDNA encoded, without a trailing dot.
    Name(String),
    /// An address (a /32 or /128 network) or a network.
    Net(Network),
}

/// An IP network: an address with its prefix length (host bits zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Network {
    addr: IpAddr,
    prefix: u8,
}

impl Network {
    fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(ip) & mask == u32::from(net)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(ip) & mask == u128::from(net)
            }
            _ => false,
        }
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let full = if self.addr.is_ipv4() { 32 } else { 128 };
        if self.prefix == full {
            write!(f, "{}", self.addr)
        } else {
            write!(f, "{}/{}", self.addr, self.prefix)
        }
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::Any => f.write_str(ANY_ADDRESS),
            Entry::Name(n) => f.write_str(n),
            Entry::Net(n) => n.fmt(f),
        }
    }
}

impl fmt::Display for WebhookAllow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.entries.is_empty() {
            return f.write_str("global addresses only");
        }
        for (i, e) in self.entries.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            e.fmt(f)?;
        }
        Ok(())
    }
}

fn bad_entry(text: &str, why: &str) -> Error {
    Error::invalid_parameter(format!(
        "webhook allow-list entry \"{text}\" {why}; write a host name (hooks.example.com), an IP \
         address (10.1.2.3, ::1), a network (10.0.0.0/8, fd00::/8) or any-address"
    ))
}

/// A name as hosts are compared: without one trailing dot.
fn bare(name: &str) -> &str {
    name.strip_suffix('.').unwrap_or(name)
}

fn parse_entry(text: &str) -> Result<Entry> {
    let t = text.trim();
    if t.is_empty() {
        return Err(bad_entry(text, "is empty"));
    }
    if t.eq_ignore_ascii_case(ANY_ADDRESS) {
        return Ok(Entry::Any);
    }
    let addr = |s: &str| -> Option<IpAddr> {
        let s = s
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .unwrap_or(s);
        s.parse::<IpAddr>().ok().map(|ip| ip.to_canonical())
    };
    if let Some((a, len)) = t.split_once('/') {
        let ip = addr(a).ok_or_else(|| bad_entry(text, "does not start with an IP address"))?;
        let full = if ip.is_ipv4() { 32 } else { 128 };
        let prefix = len
            .parse::<u8>()
            .ok()
            .filter(|p| *p <= full)
            .ok_or_else(|| {
                bad_entry(
                    text,
                    &format!("has a prefix length that is not a number from 0 to {full}"),
                )
            })?;
        let net = Network { addr: ip, prefix };
        let masked = mask(ip, prefix);
        if masked != ip {
            return Err(bad_entry(
                text,
                &format!("has bits set past its prefix (the network is {masked}/{prefix})"),
            ));
        }
        return Ok(Entry::Net(net));
    }
    if let Some(ip) = addr(t) {
        let prefix = if ip.is_ipv4() { 32 } else { 128 };
        return Ok(Entry::Net(Network { addr: ip, prefix }));
    }
    match Host::parse(t) {
        Ok(Host::Ipv4(ip)) => Ok(Entry::Net(Network {
            addr: IpAddr::V4(ip),
            prefix: 32,
        })),
        Ok(Host::Ipv6(ip)) => Ok(Entry::Net(Network {
            addr: IpAddr::V6(ip).to_canonical(),
            prefix: 128,
        })),
        Ok(Host::Domain(d))
            if !bare(&d).is_empty()
                && bare(&d)
                    .split('.')
                    .all(|label| !label.is_empty() && label.bytes().all(is_name_byte)) =>
        {
            Ok(Entry::Name(bare(&d).to_string()))
        }
        _ => Err(bad_entry(text, "is not a host name")),
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_'
}

fn mask(ip: IpAddr, prefix: u8) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => {
            let m = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V4(Ipv4Addr::from(u32::from(v4) & m))
        }
        IpAddr::V6(v6) => {
            let m = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V6(Ipv6Addr::from(u128::from(v6) & m))
        }
    }
}

/// The host of a URL as messages name it.
pub fn host_text(host: &Host<&str>) -> String {
    match host {
        Host::Domain(d) => (*d).to_string(),
        Host::Ipv4(ip) => ip.to_string(),
        Host::Ipv6(ip) => format!("[{ip}]"),
    }
}

impl WebhookAllow {
    /// The allow-list of these entries: host names, IP addresses, CIDR networks, or
    /// `any-address`.
    pub fn parse<S: AsRef<str>>(entries: impl IntoIterator<Item = S>) -> Result<WebhookAllow> {
        let entries = entries
            .into_iter()
            .map(|e| parse_entry(e.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        if entries.is_empty() {
            return Err(Error::invalid_parameter(
                "the webhook allow-list is empty; leave it out to allow global addresses only",
            ));
        }
        Ok(WebhookAllow { entries })
    }

    /// The list that opens every address (`any-address`).
    pub fn any_address() -> WebhookAllow {
        WebhookAllow {
            entries: vec![Entry::Any],
        }
    }

    fn opens_everything(&self) -> bool {
        self.entries.contains(&Entry::Any)
    }

    /// Whether `name` is listed.
    pub fn lists_name(&self, name: &str) -> bool {
        let name = bare(name);
        self.opens_everything()
            || self
                .entries
                .iter()
                .any(|e| matches!(e, Entry::Name(n) if n == name))
    }

    fn lists_address(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.opens_everything()
            || self
                .entries
                .iter()
                .any(|e| matches!(e, Entry::Net(n) if n.contains(ip)))
    }

    /// Whether a URL's host may be called, as far as its text tells: a global address, a
    /// listed one, a name (its addresses are checked by [`check_address`](Self::check_address)
    /// once resolved), but not `localhost` or a name under `.localhost` unless listed. The
    /// error names the address and the option that would allow it.
    pub fn check_host(&self, host: &Host<&str>) -> std::result::Result<(), String> {
        match host {
            Host::Domain(d) => {
                let name = bare(d);
                if (name == "localhost" || name.ends_with(".localhost")) && !self.lists_name(name) {
                    return Err(format!(
                        "host {name} is a loopback name, which this server does not call for \
                         webhooks; its operator may allow it with --webhook-allow {name}"
                    ));
                }
                Ok(())
            }
            Host::Ipv4(ip) => self.check_literal(host, IpAddr::V4(*ip)),
            Host::Ipv6(ip) => self.check_literal(host, IpAddr::V6(*ip)),
        }
    }

    fn check_literal(&self, host: &Host<&str>, ip: IpAddr) -> std::result::Result<(), String> {
        let ip = ip.to_canonical();
        match address_class(ip) {
            Some(class) if !self.lists_address(ip) => Err(format!(
                "host {} is {} {class} address, which this server does not call for webhooks; \
                 its operator may allow it with --webhook-allow {ip}",
                host_text(host),
                article(class)
            )),
            _ => Ok(()),
        }
    }

    /// Whether the client may connect to `ip`, an address `host` resolved to: a global
    /// address, a listed one, or any address of a listed name.
    pub fn check_address(&self, host: &Host<&str>, ip: IpAddr) -> std::result::Result<(), String> {
        let ip = ip.to_canonical();
        let Some(class) = address_class(ip) else {
            return Ok(());
        };
        if self.lists_address(ip) {
            return Ok(());
        }
        if let Host::Domain(d) = host {
            if self.lists_name(d) {
                return Ok(());
            }
        }
        let name = match host {
            Host::Domain(d) => format!(" {} or", bare(d)),
            _ => String::new(),
        };
        Err(format!(
            "host {} resolves to {ip}, {} {class} address, which this server does not call for \
             webhooks; its operator may allow it with --webhook-allow{name} {ip}",
            host_text(host),
            article(class)
        ))
    }
}

fn article(class: &str) -> &'static str {
    if class == "unspecified" {
        "an"
    } else {
        "a"
    }
}

/// What kind of non-global address `ip` is (`None`: a global address).
pub fn address_class(ip: IpAddr) -> Option<&'static str> {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4_class(v4),
        IpAddr::V6(v6) => v6_class(v6),
    }
}

fn v4_class(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_broadcast() => "broadcast",
        (0, _, _) => "unspecified",
        (127, _, _) => "loopback",
        (10, _, _) | (192, 168, _) => "private",
        (172, b, _) if (16..32).contains(&b) => "private",
        (100, b, _) if (64..128).contains(&b) => "shared",
        (169, 254, _) => "link-local",
        (224..=239, _, _) => "multicast",
        (240..=255, _, _) => "reserved",
        (192, 0, 0) | (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "reserved",
        (198, 18 | 19, _) => "reserved",
        _ => return None,
    })
}

fn v6_class(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address: theirs decides.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return v4_class(Ipv4Addr::from(u128::from(ip) as u32));
    }
    if s[0] == 0x2002 {
        return v4_class(Ipv4Addr::from(
            ((u128::from(ip) >> 80) & 0xffff_ffff) as u32,
        ));
    }
    Some(match s[0] {
        x if x & 0xffc0 == 0xfe80 => "link-local",
        x if x & 0xffc0 == 0xfec0 => "site-local",
        x if x & 0xfe00 == 0xfc00 => "unique-local",
        x if x & 0xff00 == 0xff00 => "multicast",
        0x2001 if s[1] == 0x0db8 => "reserved",
        0x0100 if s[1..4] == [0, 0, 0] => "reserved",
        // The rest of ::/96 (IPv4-compatible addresses, deprecated).
        0 if s[1..6] == [0, 0, 0, 0, 0] => "reserved",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allow(entries: &[&str]) -> WebhookAllow {
        WebhookAllow::parse(entries).unwrap()
    }

    fn host(url: &str) -> String {
        host_text(&parse_url(url).unwrap().host().unwrap())
    }

    #[test]
    fn urls_are_parsed_by_whatwg_rules() {
        assert_eq!(host("http://127.0.0.1:5\\@localhost:1/x"), "127.0.0.1");
        assert_eq!(host("http://localhost@127.0.0.1/"), "127.0.0.1");
        assert_eq!(host("http://2130706433/"), "127.0.0.1");
        assert_eq!(host("http://0177.0.0.1/"), "127.0.0.1");
        assert_eq!(host("http://0x7f.1/"), "127.0.0.1");
        assert_eq!(host("http://[0:0::1]/"), "[::1]");
        assert_eq!(host("HTTP://Hooks.Example./"), "hooks.example.");
        for bad in ["http://[::1", "ftp://x/", "hooks.example/x", "http://"] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn literal_addresses_must_be_global_or_opened() {
        let check = |list: &WebhookAllow, url: &str| {
            list.check_host(&parse_url(url).unwrap().host().unwrap())
        };
        let default = WebhookAllow::default();
        for (url, named) in [
            ("http://127.0.0.1/", "127.0.0.1 is a loopback"),
            ("http://2130706433/", "127.0.0.1 is a loopback"),
            ("http://0177.0.0.1/", "127.0.0.1 is a loopback"),
            ("http://0x7f.1/", "127.0.0.1 is a loopback"),
            ("http://localhost@127.0.0.1/", "127.0.0.1 is a loopback"),
            (
                "http://127.0.0.1:1\\@hooks.example/",
                "127.0.0.1 is a loopback",
            ),
            ("http://[::1]/", "[::1] is a loopback"),
            (
                "http://[::ffff:127.0.0.1]/",
                "[::ffff:127.0.0.1] is a loopback",
            ),
            ("http://169.254.169.254/", "169.254.169.254 is a link-local"),
            ("http://[fe80::1]/", "[fe80::1] is a link-local"),
            ("http://10.1.2.3/", "10.1.2.3 is a private"),
            ("http://172.31.0.1/", "172.31.0.1 is a private"),
            ("http://192.168.0.1/", "192.168.0.1 is a private"),
            ("http://[fd00::1]/", "[fd00::1] is a unique-local"),
            ("http://100.64.0.1/", "100.64.0.1 is a shared"),
            ("http://0.0.0.0/", "0.0.0.0 is an unspecified"),
            ("http://255.255.255.255/", "255.255.255.255 is a broadcast"),
            ("http://224.0.0.1/", "224.0.0.1 is a multicast"),
            ("http://localhost:9/", "localhost is a loopback name"),
            ("http://api.localhost./", "api.localhost is a loopback name"),
        ] {
            let e = check(&default, url).unwrap_err();
            assert!(e.starts_with(&format!("host {named}")), "{url}: {e}");
            assert!(e.contains("--webhook-allow "), "{url}: {e}");
        }
        for fine in [
            "http://8.8.8.8/",
            "http://hooks.example/",
            "http://[2a00:1450::1]/",
            "http://172.32.0.1/",
        ] {
            assert!(check(&default, fine).is_ok(), "{fine}");
        }
        let list = allow(&["localhost", "10.0.0.0/8", "::1"]);
        for fine in [
            "http://localhost/",
            "http://10.200.1.1/",
            "http://167772161/",
            "http://[::1]/",
        ] {
            assert!(check(&list, fine).is_ok(), "{fine}");
        }
        for refused in ["http://127.0.0.1/", "http://[::2]/", "http://192.168.0.1/"] {
            assert!(check(&list, refused).is_err(), "{refused}");
        }
        let any = WebhookAllow::parse(["any-address"]).unwrap();
        assert_eq!(any, WebhookAllow::any_address());
        for fine in [
            "http://127.0.0.1/",
            "http://localhost/",
            "http://[fe80::1]/",
        ] {
            assert!(check(&any, fine).is_ok(), "{fine}");
        }
    }

    #[test]
    fn resolved_addresses_must_be_global_or_opened() {
        let name = |n: &'static str| Host::Domain(n);
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let default = WebhookAllow::default();
        for global in ["8.8.8.8", "2a00:1450::1", "100.128.0.1"] {
            assert!(default
                .check_address(&name("hooks.example"), ip(global))
                .is_ok());
        }
        for (addr, class) in [
            ("127.0.0.1", "loopback"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::1", "loopback"),
            ("10.1.1.1", "private"),
            ("192.168.2.1", "private"),
            ("100.64.1.1", "shared"),
            ("169.254.169.254", "link-local"),
            ("fe80::1", "link-local"),
            ("fd00::1", "unique-local"),
            ("0.0.0.0", "unspecified"),
            ("::", "unspecified"),
            ("224.0.0.1", "multicast"),
            ("ff02::1", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("64:ff9b::7f00:1", "loopback"),
            ("2002:7f00:1::", "loopback"),
        ] {
            let e = default
                .check_address(&name("hooks.example"), ip(addr))
                .unwrap_err();
            let shown = ip(addr).to_canonical();
            assert!(
                e.contains("host hooks.example resolves to")
                    && e.contains(class)
                    && e.contains(&format!("--webhook-allow hooks.example or {shown}")),
                "{addr}: {e}"
            );
        }
        // A listed name may resolve to any address; a listed network opens its addresses only.
        let list = allow(&["hooks.example", "192.168.1.0/24"]);
        assert!(list
            .check_address(&name("hooks.example"), ip("127.0.0.1"))
            .is_ok());
        assert!(list
            .check_address(&name("other.example"), ip("192.168.1.7"))
            .is_ok());
        assert!(list
            .check_address(&name("other.example"), ip("192.168.2.7"))
            .is_err());
        assert!(list
            .check_address(&name("localhost"), ip("127.0.0.1"))
            .is_err());
        assert!(WebhookAllow::any_address()
            .check_address(&name("x.example"), ip("10.0.0.1"))
            .is_ok());
    }

    #[test]
    fn entries_are_checked() {
        assert_eq!(
            allow(&["A.Example.", "10.0.0.0/8", "[::1]", "2130706433"]).to_string(),
            "a.example, 10.0.0.0/8, ::1, 127.0.0.1"
        );
        assert_eq!(allow(&["Any-Address"]).to_string(), "any-address");
        assert_eq!(WebhookAllow::default().to_string(), "global addresses only");
        for bad in [
            "",
            "10.0.0.1/8",
            "10.0.0.0/33",
            "x/8",
            "*.example",
            "a b",
            "/8",
        ] {
            assert!(WebhookAllow::parse([bad]).is_err(), "{bad}");
        }
        assert!(WebhookAllow::parse(Vec::<String>::new()).is_err());
    }
}
