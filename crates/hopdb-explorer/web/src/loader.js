// The loader, inlined into index.html. When the server has users, only index.html (the login
// form and this script) is served without credentials: app.js and app.css need them. So the
// loader fetches both with the credentials given (or stored in sessionStorage, or none: a
// server without users serves them to anyone) and runs them. Once app.js runs, it owns the
// login form. The loader also starts the paint timing the tests read (window.__hopdbPerf).

const CRED_KEY = 'hopdb.explorer.credentials';

const perf = (window.__hopdbPerf = window.__hopdbPerf || {});
perf.firstPaintMs = null;
perf.firstContentfulPaintMs = null;
perf.firstPaintSource = null;

function recordPaint(entries) {
  for (const e of entries) {
    if (e.name === 'first-paint' && perf.firstPaintSource !== 'paint-timing') {
      perf.firstPaintMs = e.startTime;
      perf.firstPaintSource = 'paint-timing';
    }
    if (e.name === 'first-contentful-paint' && perf.firstContentfulPaintMs == null) perf.firstContentfulPaintMs = e.startTime;
  }
  if (perf.firstPaintSource !== 'paint-timing' && perf.firstContentfulPaintMs != null) {
    perf.firstPaintMs = perf.firstContentfulPaintMs;
    perf.firstPaintSource = 'paint-timing';
  }
}
try {
  new PerformanceObserver((list) => recordPaint(list.getEntries())).observe({type: 'paint', buffered: true});
} catch (_) {
  /* no paint timing: the fallback below */
}
requestAnimationFrame(() =>
  requestAnimationFrame(() => {
    perf.firstFrameMs = performance.now();
    // Paint entries arrive a little after the frame; without any, use the frame's time.
    setTimeout(() => {
      if (perf.firstPaintMs == null) {
        perf.firstPaintMs = perf.firstFrameMs;
        perf.firstPaintSource = 'raf';
      }
    }, 3000);
  }),
);

function stored() {
  try {
    const raw = sessionStorage.getItem(CRED_KEY);
    return raw ? JSON.parse(raw) : null;
  } catch (_) {
    return null;
  }
}

function basic(c) {
  const bytes = new TextEncoder().encode(`${c.user}:${c.password}`);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return 'Basic ' + btoa(bin);
}

let loaded = false;
let loading = false;
let pendingSubmit = false;

/** Fetches and runs app.css and app.js; 'unauthorized' when the server wants (other) credentials. */
async function load(creds) {
  const headers = creds ? {Authorization: basic(creds)} : {};
  const [css, js] = await Promise.all(
    ['./app.css', './app.js'].map((u) => fetch(u, {headers, credentials: 'omit', cache: 'no-cache'})),
  );
  if ([css, js].some((r) => r.status === 401 || r.status === 403)) return 'unauthorized';
  if (!css.ok || !js.ok) throw new Error(`cannot load the explorer's code (HTTP ${css.ok ? js.status : css.status})`);
  const [cssText, jsText] = await Promise.all([css.text(), js.text()]);
  // app.js reads the credentials from sessionStorage and logs in with them.
  if (creds) sessionStorage.setItem(CRED_KEY, JSON.stringify(creds));
  const style = document.createElement('style');
  style.textContent = cssText;
  document.head.append(style);
  loaded = true;
  const script = document.createElement('script');
  script.textContent = `${jsText}\n//# sourceURL=app.js`;
  document.body.append(script);
  return 'ok';
}

function start() {
  const form = document.getElementById('login-form');
  const err = document.getElementById('login-error');
  const attempt = async (creds, quietRefusal) => {
    loading = true;
    try {
      const r = await load(creds);
      if (r === 'unauthorized') {
        try {
          sessionStorage.removeItem(CRED_KEY);
        } catch (_) {
          /* ignore */
        }
        err.textContent = quietRefusal ? '' : 'The server refused these credentials.';
      }
    } catch (e) {
      err.textContent = e.message || String(e);
    } finally {
      loading = false;
    }
    if (pendingSubmit) {
      pendingSubmit = false;
      if (loaded) form.requestSubmit(); // submitted while loading: the app takes it
      else attempt({user: form.elements.user.value, password: form.elements.password.value}, false);
    }
  };
  form.addEventListener('submit', (ev) => {
    if (loaded) return; // app.js handles it
    ev.preventDefault();
    if (loading) {
      pendingSubmit = true;
      return;
    }
    err.textContent = 'Connecting…';
    attempt({user: form.elements.user.value, password: form.elements.password.value}, false);
  });
  // With stored credentials, or none (a server without users serves the code to anyone).
  const creds = stored();
  if (creds && form.elements.user) form.elements.user.value = creds.user;
  attempt(creds, !creds);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
