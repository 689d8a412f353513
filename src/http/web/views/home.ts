import { html, type Html } from '../html.ts';
import { durationWords, humanBytes } from './parts.ts';

export function homeView(v: {
  signedIn: boolean;
  signUpOpen: boolean;
  limits: { fileMaxBytes: number; sessionMaxFiles: number; expiryDefault: string; expiryMax: string };
}): Html {
  const l = v.limits;
  const cta = v.signedIn
    ? null
    : html`<section class="cta" aria-labelledby="start">
<h2 id="start">Start</h2>
<p>An account is needed to use the service. <a class="button" href="/sign-in">Sign in</a>${
        v.signUpOpen ? html` or <a class="button" href="/sign-up">create an account</a>` : html` (new accounts are added by the operator)`
      }.</p>
</section>`;
  return html`<h1>Obscura</h1>
<p class="lead">Hide files inside pictures, get them back, check pictures for signs of editing, and convert images and videos — without your files being kept, read or shared.</p>
${cta}
<section aria-labelledby="products">
<h2 id="products">What it does</h2>
<div class="cards">
<article class="card">
<h3><a href="/hide">Hide</a></h3>
<p>Seal one or more files with a passphrase and hide them inside an ordinary-looking image or video (the cover). The result looks and plays like the cover; without the passphrase the hidden files cannot be found or read.</p>
</article>
<article class="card">
<h3><a href="/reveal">Reveal</a></h3>
<p>Give a file made with Hide and its passphrase, and get the hidden files back under their own names. A wrong passphrase reveals nothing.</p>
</article>
<article class="card">
<h3><a href="/analyse">Analyse</a></h3>
<p>Check images and videos for signs of editing, AI generation, provenance (C2PA), hidden content, watermarks, faces, readable text and identifying metadata. Each file gets a grade from A to F with the reasons, and a check that could not run says so rather than passing.</p>
</article>
<article class="card">
<h3><a href="/convert">Convert</a></h3>
<p>Convert images and videos to another format or size, optionally blurring faces and text first. Every output is stripped of its metadata.</p>
</article>
</div>
<p class="hint">Each file may be up to ${humanBytes(l.fileMaxBytes)}, and up to ${l.sessionMaxFiles} files go in one job.</p>
</section>
<section id="privacy" aria-labelledby="privacy-h">
<h2 id="privacy-h">What this service keeps, and what it does not</h2>
<ul>
<li>Your files are encrypted at rest, each with its own key, and destroyed when the upload session or the results expire.</li>
<li>Results expire after ${durationWords(l.expiryDefault)} by default; you can choose a shorter time, or a longer one up to ${durationWords(l.expiryMax)}.</li>
<li>No IP addresses, file names or passphrases are logged.</li>
<li>Every output is stripped of its metadata.</li>
<li>These pages load nothing from anywhere else and use no JavaScript: they work in Tor Browser at its Safest level.</li>
<li>An account keeps only its e-mail address (encrypted, with a keyed hash to find it by), an argon2id hash of its password, and an HMAC of each API key (never the key itself).</li>
</ul>
</section>
`;
}
