// The platform console's script: sign-in, and pages loaded with the token as a bearer token.
//
// The token is kept in this tab's sessionStorage and sent only in the Authorization header of
// the page's own requests; it is never put in a URL, a cookie or a form field that submits. A
// console address with Basic credentials (http://user:token@host/console/...) signs in with
// them: they are taken from the address (which then loses them) and sent as Basic credentials.
// Pages are HTML rendered by the server; this script fetches them and puts their main area in
// place, follows console links and forms the same way, posts record actions to the REST
// interface, fills the search's suggestions, downloads CSV files and turns the series page's
// scaling fields off while it shows the series as stored.
(function () {
  'use strict';

  var KEY = 'platform.console.token';
  var USER_KEY = 'platform.console.user';
  var body = document.body;
  var base = body.getAttribute('data-base') || '';
  var main = document.getElementById('main');
  var statusEl = document.getElementById('console-status');
  var signin = document.getElementById('signin');
  var signout = document.getElementById('signout');
  var signinLink = document.getElementById('signin-link');
  var whoami = document.getElementById('whoami');

  function token() {
    try { return window.sessionStorage.getItem(KEY); } catch (e) { return null; }
  }

  function user() {
    try { return window.sessionStorage.getItem(USER_KEY); } catch (e) { return null; }
  }

  // The token to send, and the user it is sent for as Basic credentials (none: as a bearer
  // token); no token forgets both.
  function setToken(value, name) {
    try {
      if (value) { window.sessionStorage.setItem(KEY, value); } else { window.sessionStorage.removeItem(KEY); }
      if (value && name) { window.sessionStorage.setItem(USER_KEY, name); } else { window.sessionStorage.removeItem(USER_KEY); }
    } catch (e) { /* storage refused: the page keeps working signed out */ }
  }

  function base64(text) {
    var bytes = new TextEncoder().encode(text);
    var binary = '';
    for (var i = 0; i < bytes.length; i++) { binary += String.fromCharCode(bytes[i]); }
    return window.btoa(binary);
  }

  function headers(extra) {
    var h = extra || {};
    var t = token();
    var name = user();
    if (t && name) { h.Authorization = 'Basic ' + base64(name + ':' + t); } else if (t) { h.Authorization = 'Bearer ' + t; }
    return h;
  }

  // A URL of this server without credentials: fetch refuses a URL that carries them, and one
  // relative to a document opened at an address with credentials carries them.
  function clean(u) {
    var url = new URL(u, window.location.href);
    url.username = '';
    url.password = '';
    return url.href;
  }

  // Basic credentials in the console's address (http://user:token@host/console/...): the
  // browser keeps them in document.URL, not in location, and sends them only when a server
  // asks. They sign in as a token does, and the page opens again at the address without them
  // (history cannot rewrite the credentials of an address). Whether it does.
  function signInFromAddress() {
    var url;
    try { url = new URL(document.URL); } catch (e) { return false; }
    if (!url.username && !url.password) { return false; }
    var name = decodeURIComponent(url.username);
    var secret = decodeURIComponent(url.password);
    if (secret) { setToken(secret, name || null); }
    window.location.replace(clean(url.href));
    return true;
  }

  function say(text, isError) {
    statusEl.textContent = text || '';
    statusEl.classList.toggle('error', !!isError);
  }

  // The message of the API's error envelope, else of its x-platform-error header (a page that
  // shows a refusal), else the HTTP status.
  function errorText(res, text) {
    try {
      var j = JSON.parse(text);
      if (j && j.error) { return j.error.message + ' (' + j.error.code + ')'; }
    } catch (e) { /* not JSON */ }
    var header = /^\[([A-Z_]+)\] (.*)$/.exec(res.headers.get('x-platform-error') || '');
    if (header) { return header[2] + ' (' + header[1] + ')'; }
    return res.status + ' ' + res.statusText;
  }

  function isHtml(res) {
    return (res.headers.get('Content-Type') || '').indexOf('text/html') === 0;
  }

  function read(res) {
    return res.text().then(function (text) { return { res: res, text: text }; });
  }

  function showSignin(message) {
    signin.hidden = false;
    signout.hidden = true;
    signinLink.hidden = false;
    whoami.textContent = '';
    document.getElementById('signin-error').textContent = message || '';
    document.getElementById('token').focus();
  }

  function signedIn() {
    signin.hidden = true;
    signout.hidden = !token();
    signinLink.hidden = true;
    whoami.textContent = token() ? (user() ? 'Signed in as ' + user() : 'Signed in') : '';
    body.setAttribute('data-signed-in', 'true');
  }

  function isConsolePage(url) {
    var path = url.pathname;
    return url.origin === window.location.origin &&
      (path === base + '/console' || path.indexOf(base + '/console/') === 0) &&
      path.indexOf(base + '/console/assets/') !== 0 &&
      path !== base + '/console/signin';
  }

  // Loads a console page with the token and puts its main area in place.
  function load(url, push) {
    if (!token()) { showSignin(); return Promise.resolve(false); }
    say('Loading…');
    main.setAttribute('aria-busy', 'true');
    return fetch(clean(url), { headers: headers({ Accept: 'text/html' }) })
      .then(read)
      .then(function (r) {
        main.removeAttribute('aria-busy');
        if (r.res.status === 401) {
          setToken(null);
          say('');
          showSignin(errorText(r.res, r.text));
          return false;
        }
        // An error is the API's envelope, or a console page that shows the refusal in place.
        if (!r.res.ok && !isHtml(r.res)) {
          say(errorText(r.res, r.text), true);
          if (push) { window.history.pushState({}, '', url); }
          return false;
        }
        var doc = new DOMParser().parseFromString(r.text, 'text/html');
        var fresh = doc.getElementById('main');
        if (!fresh) { say('The server answered something that is not a console page.', true); return false; }
        main.innerHTML = fresh.innerHTML;
        main.setAttribute('data-title', fresh.getAttribute('data-title') || '');
        document.title = doc.title;
        var theirs = doc.querySelectorAll('header nav a');
        var mine = document.querySelectorAll('header nav a');
        for (var i = 0; i < mine.length && i < theirs.length; i++) {
          var current = theirs[i].getAttribute('aria-current');
          if (current) { mine[i].setAttribute('aria-current', current); } else { mine[i].removeAttribute('aria-current'); }
        }
        if (push) { window.history.pushState({}, '', url); }
        signedIn();
        say(r.res.ok ? '' : errorText(r.res, r.text), !r.res.ok);
        enhance();
        if (push) { main.focus(); }
        return r.res.ok;
      })
      .catch(function (e) {
        main.removeAttribute('aria-busy');
        say('The server could not be reached: ' + e.message, true);
        return false;
      });
  }

  function here() {
    return window.location.pathname + window.location.search;
  }

  // Record actions: override, removeOverride, comment.
  function act(form) {
    var payload = { ids: [form.getAttribute('data-id')] };
    new FormData(form).forEach(function (v, k) { payload[k] = v; });
    var button = form.querySelector('button');
    button.disabled = true;
    say('Sending…');
    return fetch(clean(form.getAttribute('data-endpoint')), {
      method: 'POST',
      headers: headers({ 'Content-Type': 'application/json', Accept: 'application/json' }),
      body: JSON.stringify(payload)
    })
      .then(read)
      .then(function (r) {
        button.disabled = false;
        if (!r.res.ok) { say(errorText(r.res, r.text), true); return; }
        var results = JSON.parse(r.text);
        var refused = results.filter(function (x) { return x.ok === false; });
        if (refused.length) {
          say(refused.map(function (x) { return x.id + ': ' + x.message; }).join('; '), true);
          return;
        }
        var done = results.map(function (x) {
          return x.id + ': ' + (x.message || 'done') + (x.status ? ' (now ' + x.status + ')' : '');
        }).join('; ');
        return load(here(), false).then(function () { say(done || 'Done.'); });
      })
      .catch(function (e) {
        button.disabled = false;
        say('The server could not be reached: ' + e.message, true);
      });
  }

  // A CSV (or other) download with the token: fetched, then saved from a blob.
  function download(a) {
    say('Downloading…');
    return fetch(clean(a.href), { headers: headers({ Accept: a.getAttribute('data-accept') }) })
      .then(function (res) {
        if (!res.ok) { return read(res).then(function (r) { say(errorText(r.res, r.text), true); }); }
        return res.blob().then(function (blob) {
          var url = URL.createObjectURL(blob);
          var link = document.createElement('a');
          link.href = url;
          link.download = a.getAttribute('download') || 'data';
          document.body.appendChild(link);
          link.click();
          link.remove();
          setTimeout(function () { URL.revokeObjectURL(url); }, 5000);
          say('Downloaded ' + link.download + ' (' + blob.size + ' bytes).');
        });
      })
      .catch(function (e) { say('The server could not be reached: ' + e.message, true); });
  }

  // Suggestions for the search box from the object service's _searchinfo.
  function suggest(input) {
    var list = document.getElementById(input.getAttribute('list'));
    var timer = null;
    var asked = '';
    input.addEventListener('input', function () {
      var text = input.value.trim();
      window.clearTimeout(timer);
      if (!text || text === asked || !token()) { return; }
      timer = window.setTimeout(function () {
        asked = text;
        var url = input.getAttribute('data-suggest') + '?_searchinfo=' + encodeURIComponent(text) + '&_limit=8';
        fetch(clean(url), { headers: headers({ Accept: 'application/json' }) })
          .then(function (res) { return res.ok ? res.json() : []; })
          .then(function (items) {
            list.innerHTML = '';
            items.forEach(function (item) {
              var option = document.createElement('option');
              option.value = item._id;
              if (item.name) { option.label = item.name; }
              list.appendChild(option);
            });
          })
          .catch(function () { /* suggestions are a help only */ });
      }, 150);
    });
  }

  // The series page's "Observed" and "Block" apply to a scaling only: off while "Scale to" is
  // "as stored" (so the form does not send them).
  function scaling() {
    var scale = main.querySelector('select[data-scale]');
    if (!scale) { return; }
    var fields = main.querySelectorAll('[data-needs-scale]');
    var sync = function () {
      for (var i = 0; i < fields.length; i++) { fields[i].disabled = scale.value === ''; }
    };
    scale.addEventListener('change', sync);
    sync();
  }

  // What a page needs the script for: action buttons, suggestions, the scaling fields.
  function enhance() {
    var needs = main.querySelectorAll('[data-needs-script]');
    for (var i = 0; i < needs.length; i++) { needs[i].disabled = false; }
    var notes = main.querySelectorAll('.needs-script');
    for (var j = 0; j < notes.length; j++) { notes[j].hidden = true; }
    var inputs = main.querySelectorAll('input[data-suggest]');
    for (var k = 0; k < inputs.length; k++) { suggest(inputs[k]); }
    scaling();
  }

  document.addEventListener('click', function (e) {
    var a = e.target.closest ? e.target.closest('a') : null;
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) { return; }
    var href = a.getAttribute('href') || '';
    if (href.charAt(0) === '#') {
      // A link within the page (the skip link): move the focus there, not only the view.
      var target = document.getElementById(href.slice(1));
      if (target) { e.preventDefault(); target.focus(); target.scrollIntoView(); }
      return;
    }
    if (a === signinLink) { e.preventDefault(); showSignin(); return; }
    if (a.hasAttribute('data-accept') && token()) { e.preventDefault(); download(a); return; }
    var url = new URL(a.href, window.location.href);
    if (!token() || !isConsolePage(url)) { return; }
    e.preventDefault();
    load(url.pathname + url.search, true);
  });

  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (form.id === 'signin-form') {
      e.preventDefault();
      var field = document.getElementById('token');
      var value = field.value.trim();
      field.value = '';
      if (!value) { return; }
      setToken(value);
      load(here(), false).then(function (ok) { if (ok) { main.focus(); } });
      return;
    }
    if (form.classList.contains('action')) { e.preventDefault(); act(form); return; }
    if ((form.getAttribute('method') || 'get').toLowerCase() !== 'get' || !token()) { return; }
    e.preventDefault();
    var url = new URL(form.getAttribute('action') || here(), window.location.href);
    var params = new URLSearchParams();
    new FormData(form).forEach(function (v, k) {
      if (String(v).trim() !== '') { params.append(k, v); }
    });
    url.search = params.toString();
    load(url.pathname + url.search, true);
  });

  signout.addEventListener('click', function () {
    setToken(null);
    main.innerHTML = '<p>Signed out.</p>';
    say('');
    showSignin();
  });

  window.addEventListener('popstate', function () { load(here(), false); });

  if (signInFromAddress()) {
    // Opening again without the credentials.
  } else if (body.getAttribute('data-signed-in') === 'true') {
    signedIn();
    enhance();
  } else if (token()) {
    load(here(), false);
  } else {
    showSignin();
  }
}());
