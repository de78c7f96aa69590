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
//! The rule, without an allow-list: any host. With one:
//! - the URL's host must be a listed name, or an IP address that is listed or inside a listed
//!   network (`10.0.0.0/8`);
//! - when the client connects, each address the host resolves to must be global, or listed
//!   (as an address or inside a listed network), or loopback when the host is the listed name
//!   `localhost` (RFC 6761: localhost means loopback). A name that resolves to a loopback,
//!   private, link-local, unique-local, unspecified, multicast, broadcast or reserved address
//!   is refused ([`WebhookAllow::check_address`]).

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

/// The hosts and networks webhooks may call (`--webhook-allow`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookAllow {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
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
            Entry::Name(n) => f.write_str(n),
            Entry::Net(n) => n.fmt(f),
        }
    }
}

impl fmt::Display for WebhookAllow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
         address (10.1.2.3, ::1) or a network (10.0.0.0/8, fd00::/8)"
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
    /// The allow-list of these entries: host names, IP addresses and CIDR networks.
    pub fn parse<S: AsRef<str>>(entries: impl IntoIterator<Item = S>) -> Result<WebhookAllow> {
        let entries = entries
            .into_iter()
            .map(|e| parse_entry(e.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        if entries.is_empty() {
            return Err(Error::invalid_parameter(
                "the webhook allow-list is empty; leave it out to allow any host",
            ));
        }
        Ok(WebhookAllow { entries })
    }

    fn lists_name(&self, name: &str) -> bool {
        let name = bare(name);
        self.entries
            .iter()
            .any(|e| matches!(e, Entry::Name(n) if n == name))
    }

    fn lists_address(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.entries
            .iter()
            .any(|e| matches!(e, Entry::Net(n) if n.contains(ip)))
    }

    /// Whether a URL's host may be called: a listed name, or a listed address or one inside a
    /// listed network. The error says why not.
    pub fn check_host(&self, host: &Host<&str>) -> std::result::Result<(), String> {
        let allowed = match host {
            Host::Domain(d) => self.lists_name(d),
            Host::Ipv4(ip) => self.lists_address(IpAddr::V4(*ip)),
            Host::Ipv6(ip) => self.lists_address(IpAddr::V6(*ip)),
        };
        if allowed {
            Ok(())
        } else {
            Err(format!(
                "host {} is not among the webhook hosts this server allows ({self})",
                host_text(host)
            ))
        }
    }

    /// Whether the client may connect to `ip`, an address `host` resolved to: a global
    /// address, a listed one, or a loopback one for the listed name `localhost`.
    pub fn check_address(&self, host: &Host<&str>, ip: IpAddr) -> std::result::Result<(), String> {
        let ip = ip.to_canonical();
        let Some(class) = address_class(ip) else {
            return Ok(());
        };
        if self.lists_address(ip) {
            return Ok(());
        }
        if let Host::Domain(d) = host {
            if bare(d) == "localhost" && self.lists_name("localhost") && ip.is_loopback() {
                return Ok(());
            }
        }
        Err(format!(
            "host {} resolves to {ip}, a {class} address, which this server does not call (list \
             the address or its network in the webhook allow-list to allow it)",
            host_text(host)
        ))
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
        (100, b, _) if (64..128).contains(&b) => "private",
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
    fn hosts_must_be_listed_names_addresses_or_inside_listed_networks() {
        let list = allow(&[
            "localhost",
            "Hooks.Example",
            "10.0.0.0/8",
            "::1",
            "[fd00::]/8",
        ]);
        let check = |url: &str| list.check_host(&parse_url(url).unwrap().host().unwrap());
        for ok in [
            "http://localhost:9/",
            "http://LOCALHOST./",
            "http://hooks.example/",
            "http://10.200.1.1/",
            "http://167772161/",
            "http://[::1]:80/",
            "http://[fd12::1]/",
        ] {
            assert!(check(ok).is_ok(), "{ok}");
        }
        for refused in [
            "http://127.0.0.1/",
            "http://2130706433/",
            "http://0177.0.0.1/",
            "http://localhost@127.0.0.1/",
            "http://127.0.0.1:1\\@localhost/",
            "http://[::2]/",
            "http://11.0.0.1/",
            "http://sub.hooks.example/",
        ] {
            let e = check(refused).unwrap_err();
            assert!(
                e.contains("is not among the webhook hosts"),
                "{refused}: {e}"
            );
        }
    }

    #[test]
    fn resolved_addresses_must_be_global_listed_or_loopback_for_localhost() {
        let list = allow(&["localhost", "hooks.example", "192.168.1.0/24"]);
        let name = |n: &'static str| Host::Domain(n);
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert!(list
            .check_address(&name("hooks.example"), ip("8.8.8.8"))
            .is_ok());
        assert!(list
            .check_address(&name("hooks.example"), ip("2a00:1450::1"))
            .is_ok());
        assert!(list
            .check_address(&name("hooks.example"), ip("192.168.1.7"))
            .is_ok());
        assert!(list
            .check_address(&name("localhost"), ip("127.0.0.1"))
            .is_ok());
        assert!(list.check_address(&name("localhost"), ip("::1")).is_ok());
        for (addr, class) in [
            ("127.0.0.1", "loopback"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::1", "loopback"),
            ("10.1.1.1", "private"),
            ("192.168.2.1", "private"),
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
            let e = list
                .check_address(&name("hooks.example"), ip(addr))
                .unwrap_err();
            assert!(
                e.contains("hooks.example") && e.contains(class),
                "{addr}: {e}"
            );
        }
        // Only the name localhost may reach loopback, and only loopback.
        assert!(list
            .check_address(&name("localhost"), ip("10.0.0.1"))
            .is_err());
        let without = allow(&["hooks.example"]);
        assert!(without
            .check_address(&name("localhost"), ip("127.0.0.1"))
            .is_err());
    }

    #[test]
    fn entries_are_checked() {
        assert_eq!(
            allow(&["A.Example.", "10.0.0.0/8", "[::1]", "2130706433"]).to_string(),
            "a.example, 10.0.0.0/8, ::1, 127.0.0.1"
        );
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
