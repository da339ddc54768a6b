vcl 4.1;
# Folio's published blogs, served from the bucket by Varnish (README "CDN: Varnish").
#
#   reader ──► Varnish ──► bucket (S3 API, path style: GET /<bucket>/<blog slug>/<key>)
#                      └─► Folio's site server, for custom domains and the view beacon
#   Folio  ──► Varnish: PURGE <path> and BAN / with the public Host after every publish job
#
# To adapt it, edit the lines marked EDIT: the two backends, the bucket name and the addresses
# allowed to purge. The values here match docker-compose.yml (MinIO at minio:9000, bucket
# folio-sites, Folio at folio:3000). The service domain is not edited here: varnishd reads it
# from its environment, FOLIO_SERVICE_DOMAIN, the same variable and value Folio takes
# (`blogs.example.com`; a port is ignored), and `localhost` when it is unset.
#
# Why custom domains go to Folio: the bucket holds `_domains/<hostname>` (its body is the blog
# slug), but stock VCL cannot read a response body to pick the prefix of a second request
# without extra vmods. Folio's site server already maps custom hosts from its database, and
# with the cache in front it serves each page about once per publish.

import std;

# EDIT: the bucket's S3 endpoint. Objects must be readable without signing (a GET-only policy
# for anonymous readers, as the compose file's minio-bucket service sets).
backend bucket {
    .host = "minio";
    .port = "9000";
    .connect_timeout = 2s;
    .first_byte_timeout = 10s;
}

# EDIT: Folio's HTTP port (FOLIO_SERVE_SITES=true), for custom domains and the view beacon
# (start Folio with FOLIO_TRUST_PROXY=on, so readers' addresses come from X-Forwarded-For).
backend folio {
    .host = "folio";
    .port = "3000";
    .connect_timeout = 2s;
    .first_byte_timeout = 10s;
}

# EDIT: who may PURGE and BAN: Folio's address. A name in parentheses that does not resolve
# when the VCL loads is skipped instead of failing the load.
acl purgers {
    "127.0.0.1";
    "::1";
    ("folio");
    # Every node of deploy/several-nodes/compose.yaml (the name resolves to all of them).
    ("folio-nodes");
}

sub vcl_recv {
    # One spelling per host: lower case, no trailing dot. The port stays: Folio purges with the
    # public Host readers send, port included when the service domain has one.
    set req.http.host = regsub(std.tolower(req.http.host), "\.(:|$)", "\1");
    set req.http.x-folio-host = req.http.host;
    unset req.http.x-folio-bucket-key;

    if (req.method != "GET" && req.method != "HEAD" && req.method != "PURGE" && req.method != "BAN") {
        return (synth(405, "Method Not Allowed"));
    }
    if ((req.method == "PURGE" || req.method == "BAN") && client.ip !~ purgers) {
        return (synth(403, "Forbidden"));
    }
    if (req.method == "BAN") {
        # Every object of this host; obj.* only, so the ban lurker can clear them in the background.
        ban("obj.http.x-folio-host == " + req.http.x-folio-host);
        return (synth(200, "Banned"));
    }

    # The view beacon of published pages (docs/analytics.md): always Folio's, never cached, with
    # its query (the post) and the reader's address, which varnishd appends to X-Forwarded-For.
    if (req.url ~ "^/_folio/view\.gif(\?|$)" && req.method != "PURGE") {
        unset req.http.cookie;
        unset req.http.authorization;
        set req.backend_hint = folio;
        return (pass);
    }

    # A static site: no cookies, no credentials, no query strings in the cache key.
    unset req.http.cookie;
    unset req.http.authorization;
    set req.url = regsub(req.url, "[?#].*$", "");

    # Blogs live at <slug>.<service domain>, any port. VCL regexes are fixed when the VCL is
    # compiled, so the domain from the environment is compared as a string instead.
    set req.http.x-folio-domain = regsub(std.tolower(std.getenv("FOLIO_SERVICE_DOMAIN")), ":[0-9]*$", "");
    if (req.http.x-folio-domain == "") {
        set req.http.x-folio-domain = "localhost";
    }
    set req.http.x-folio-hostname = regsub(req.http.host, ":[0-9]*$", "");
    set req.http.x-folio-slug = regsub(req.http.x-folio-hostname, "^([a-z0-9][a-z0-9-]*)\..*$", "\1");
    if (req.http.x-folio-slug ~ "^[a-z0-9][a-z0-9-]*$" && req.http.x-folio-hostname == req.http.x-folio-slug + "." + req.http.x-folio-domain) {
        unset req.http.x-folio-domain;
        unset req.http.x-folio-hostname;
        call folio_bucket_key;
        set req.backend_hint = bucket;
    } else {
        # A custom domain (or anything else): Folio's site server decides, by Host.
        unset req.http.x-folio-domain;
        unset req.http.x-folio-hostname;
        unset req.http.x-folio-slug;
        set req.backend_hint = folio;
    }
    if (req.method == "PURGE") {
        return (purge);
    }
    return (hash);
}

# The object key for a reader's path, as Folio's site server maps it (keyForPath in
# src/http/siteServer.ts): `/` → index.html, `/x` and `/x/` → x/index.html, a last segment with
# a dot is a file (`/rss.xml`). Paths that could leave the blog's prefix or reach its internal
# objects (`_search/`) get the blog's 404 page. The path stays percent-encoded: S3 decodes it.
sub folio_bucket_key {
    set req.http.x-folio-path = regsuball(req.url, "/{2,}", "/");
    if (req.http.x-folio-path ~ "(?i)(^|/|%2f)(\.|%2e)" || req.http.x-folio-path ~ "(?i)(\\|%5c|%00)" || req.http.x-folio-path ~ "(?i)^/(_|%5f)") {
        set req.http.x-folio-path = "/404.html";
        set req.http.x-folio-missing = "1";
    } elsif (req.http.x-folio-path ~ "/$") {
        set req.http.x-folio-path = req.http.x-folio-path + "index.html";
    } elsif (req.http.x-folio-path !~ "(?i)/[^/]*(\.|%2e)[^/]*$") {
        set req.http.x-folio-path = req.http.x-folio-path + "/index.html";
    }
    # EDIT: the bucket's name.
    set req.url = "/folio-sites/" + req.http.x-folio-slug + req.http.x-folio-path;
    unset req.http.x-folio-path;
}

sub vcl_hash {
    # The host and the (rewritten) path: `/x` and `/x/` of a blog are one object.
    hash_data(req.http.x-folio-host);
    hash_data(req.url);
    return (lookup);
}

sub vcl_backend_fetch {
    if (bereq.backend == bucket) {
        # The bucket is addressed by path; a blog's Host would read as a virtual-hosted bucket.
        unset bereq.http.host;
        if (bereq.retries == 0) {
            set bereq.http.x-folio-original-url = bereq.url;
        }
    }
}

sub vcl_backend_response {
    if (bereq.backend == bucket) {
        # Missing objects: S3 answers 404, or 403 when anonymous readers may not list the
        # bucket. Either way the reader gets the blog's 404 page with status 404.
        if ((beresp.status == 404 || beresp.status == 403) && !bereq.http.x-folio-404) {
            set bereq.http.x-folio-404 = "1";
            set bereq.url = regsub(bereq.url, "^(/[^/]+/[^/]+)/.*$", "\1/404.html");
            return (retry);
        }
        if (bereq.http.x-folio-404 || bereq.http.x-folio-missing) {
            if (beresp.status == 200) {
                set beresp.status = 404;
            } else {
                # No 404 page either: a blog that does not exist (yet, or any more).
                return (error(404, "Not Found"));
            }
        }
        # A renamed post's old address or a post's alias: an object carrying S3's website redirect.
        if (beresp.http.x-amz-website-redirect-location) {
            set beresp.status = 301;
            set beresp.http.location = beresp.http.x-amz-website-redirect-location;
        }
        if (beresp.status >= 500) {
            set beresp.ttl = 0s;
            set beresp.uncacheable = true;
            return (deliver);
        }
    } else if (!beresp.http.cache-control || beresp.http.cache-control ~ "(private|no-store)") {
        # Folio answers hosts that are no blog from its API: never cache those.
        set beresp.ttl = 0s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    # Remembered on the object, so BAN can find every object of a host.
    set beresp.http.x-folio-host = bereq.http.x-folio-host;
    if (beresp.http.content-type ~ "^(text/|application/(json|xml|rss\+xml|feed\+json|javascript))") {
        set beresp.do_gzip = true;
    }
    # The TTL comes from the object's Cache-Control (s-maxage); purges end it early.
    return (deliver);
}

sub vcl_backend_error {
    if (beresp.status == 404) {
        set beresp.http.content-type = "text/plain; charset=utf-8";
        set beresp.http.cache-control = "public, max-age=60";
        set beresp.http.x-folio-host = bereq.http.x-folio-host;
        set beresp.ttl = 60s;
        synthetic("Not Found" + {"
"});
        return (deliver);
    }
}

sub vcl_deliver {
    if (obj.hits > 0) {
        set resp.http.x-cache = "HIT";
    } else {
        set resp.http.x-cache = "MISS";
    }
    # Browsers get the page's own max-age (a minute), counted from now rather than from when
    # the edge fetched it, which may be up to a day ago.
    unset resp.http.age;
    unset resp.http.x-folio-host;
    unset resp.http.server;
    unset resp.http.via;
    unset resp.http.x-varnish;
    unset resp.http.x-amz-request-id;
    unset resp.http.x-amz-id-2;
    unset resp.http.x-amz-website-redirect-location;
    unset resp.http.x-amz-meta-folio;
    unset resp.http.x-minio-deployment-id;
    unset resp.http.accept-ranges;
    return (deliver);
}

sub vcl_synth {
    set resp.http.content-type = "text/plain; charset=utf-8";
    synthetic(resp.reason + {"
"});
    return (deliver);
}
