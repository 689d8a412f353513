// The analysis report page as a person reads it, through the real pages: a detail the file
// simply does not carry (GPS position, camera make, C2PA signer) reads "not present", and only a
// check that could not run reads "no answer"; tips name the forms' own labels, never the API's
// syntax. The API's report is unchanged: null there, and its own words in the tips.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from './helpers/test.ts';
import { startService, tempDir, type RunningService } from './helpers/service.ts';
import { WebClient } from './helpers/web-client.ts';

const PASSWORD = 'a long enough password';
const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures', name));
// photo-mountain.jpg: one face, no metadata at all (no GPS, no camera, no C2PA); a lossy JPEG,
// so the LSB steganalysis cannot run on it. secret-small.png: two lines of text.
const PHOTO = 'photo-mountain.jpg';
const TEXT_PNG = 'secret-small.png';
const GPS_PHOTO = 'located.jpg';

/** The mountain photo with a GPS position and a camera make written in. */
function locatedPhoto(): Buffer {
  const file = path.join(tempDir(), GPS_PHOTO);
  copyFileSync(path.join(import.meta.dirname, 'fixtures', PHOTO), file);
  execFileSync('exiftool', ['-q', '-overwrite_original', '-GPSLatitude=46.5197', '-GPSLatitudeRef=N', '-GPSLongitude=6.6323', '-GPSLongitudeRef=E', '-Make=Canon', file]);
  return readFileSync(file);
}

async function person(svc: RunningService) {
  const { email, key } = await svc.account();
  await svc.services.selfService.setPassword(await svc.services.accounts.get(email), PASSWORD);
  const web = new WebClient(svc.url.clearnet);
  const r = await web.signIn(email, PASSWORD);
  if (r.status !== 303) throw new Error(`sign-in ${r.status}`);
  return { key, web };
}

/** What a person sees of some HTML: the text, without tags, entities decoded, spaces collapsed. */
function seen(htmlText: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
  return htmlText
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => entities[e])
    .replace(/\s+/g, ' ')
    .trim();
}

/** The HTML of one file's part of the report. */
function fileReport(page: string, name: string): string {
  const start = page.indexOf(`>${name}</h2>`);
  if (start < 0) throw new Error(`no report for ${name}`);
  return page.slice(start, page.indexOf('</article>', start));
}

/** The HTML of one check of a file's report, from its heading to the end of its section. */
function check(report: string, title: string): string {
  const start = report.indexOf(`<h4>${title}</h4>`);
  if (start < 0) throw new Error(`no check ${title}`);
  return report.slice(start, report.indexOf('</section>', start));
}

/** Sends the analyse form with these files and fields, as a browser does; returns the finished report page and the job's id. */
async function analyse(web: WebClient, files: (string | [string, Buffer])[], fields: Record<string, string>): Promise<{ page: string; jobId: string }> {
  await web.get('/analyse');
  const form = new FormData();
  form.append('csrf', web.csrf);
  for (const f of files) {
    const [name, bytes] = typeof f === 'string' ? [f, fixture(f)] : f;
    form.append('files', new Blob([bytes]), name);
  }
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const started = await web.postMultipart('/analyse', form);
  if (started.status !== 303) throw new Error(`analyse form ${started.status}: ${started.body.slice(0, 300)}`);
  const jobPath = started.headers.get('location')!;
  for (const end = Date.now() + 110_000; Date.now() < end; ) {
    const page = await web.get(jobPath);
    if (!/id="job-progress"/.test(page.body)) return { page: page.body, jobId: jobPath.split('/').pop()! };
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the analysis did not finish');
}

test('the report page: absent metadata reads "not present", a check that could not run "no answer", a GPS position is shown; tips in the words of the forms; the API report unchanged', async (t) => {
  t.timeout(120_000);
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key, web } = await person(svc);

  // the labels a tip must use are those of the convert form
  const convertForm = seen((await web.get('/convert')).body);
  t.regex(convertForm, /Redact before converting Faces Text/);

  const { page, jobId } = await analyse(web, [PHOTO, TEXT_PNG, [GPS_PHOTO, locatedPhoto()]], { forensic_depth: 'standard', face_sensitivity: 'medium', face_detection: 'true', text_detection: 'true', tips: 'true' });
  const photo = fileReport(page, PHOTO);
  t.true(seen(photo).includes('“No answer”: the check could not run on this file (or does not apply to it), so it says nothing either way. “Not present”: the check ran and the file does not carry this detail.'), 'the page says what the two mean');

  // details the file does not carry: "not present", and the check is not shown as failed
  const privacy = seen(check(photo, 'Identifying metadata'));
  t.true(privacy.includes('GPS position not present'), privacy);
  t.true(privacy.includes('Most serious exposure none'), privacy);
  const c2pa = seen(check(photo, 'C2PA provenance'));
  for (const field of ['Claim generator', 'Signer', 'Signed at', 'Digital source type']) t.true(c2pa.includes(`${field} not present`), `${field}: ${c2pa}`);
  const camera = seen(check(photo, 'Camera and encoder fingerprint'));
  for (const field of ['Make', 'Model', 'Software']) t.true(camera.includes(`${field} not present`), `${field}: ${camera}`);
  t.true(camera.includes('Estimated first quality does not apply'), 'not double compressed: the first save has no quality');
  for (const [title, text] of [['Identifying metadata', privacy], ['C2PA provenance', c2pa], ['Camera and encoder fingerprint', camera]]) {
    t.false(/no answer/i.test(text), `${title} ran: nothing in it reads "no answer": ${text}`);
  }
  // a check that could not run still reads "no answer" (LSB steganalysis on a lossy JPEG)
  t.true(seen(check(photo, 'Hidden content (steganography)')).includes('No answer — this check could not run or did not apply; it is not a clean result.'));

  // what the file does carry is shown: where it was taken, and with what
  const located = fileReport(page, GPS_PHOTO);
  t.true(seen(check(located, 'Identifying metadata')).includes('GPS position 46.5197, 6.6323'), seen(check(located, 'Identifying metadata')));
  t.true(seen(check(located, 'Camera and encoder fingerprint')).includes('Make Canon'));

  // tips in the words of the forms, linking to the form
  t.true(seen(photo).includes('Tip: Faces identify people: use the Convert page with “Faces” ticked under “Redact before converting” to blur them before sharing.'), seen(photo));
  t.regex(photo, /use the <a href="\/convert">Convert<\/a> page/);
  t.true(seen(fileReport(page, TEXT_PNG)).includes('Tip: Text in a picture can say more than meant: use the Convert page with “Text” ticked under “Redact before converting” to blur it before sharing.'));
  for (const api of ['redact [', '"faces"', '"text"', 'null']) t.false(seen(page).includes(api), `no API syntax (${api}) on the page`);

  // the API's report keeps its contract: null for both, its own words in the tips
  const api = await svc.api('GET', `/api/analyse/result/${jobId}`, key);
  t.is(api.status, 200);
  const item = api.body.files.find((f: { name: string }) => f.name === PHOTO);
  t.is(item.verdicts.privacy.gps, null);
  t.is(item.verdicts.c2pa.signer, null);
  t.is(item.verdicts.camera_fingerprint.make, null);
  t.is(item.verdicts.hidden_content.suspected, null);
  t.true(item.verdicts.findings.some((f: { tip?: string }) => f.tip === 'Faces identify people: convert with redact ["faces"] to blur them before sharing.'));
});

test('the report page: a check left unticked names the box, and its count reads "no answer", never null', async (t) => {
  t.timeout(120_000);
  const svc = await startService();
  t.teardown(() => svc.close());
  const { web } = await person(svc);
  // an unticked box is not sent at all
  const { page } = await analyse(web, [PHOTO], { forensic_depth: 'standard', face_sensitivity: 'medium', tips: 'true' });
  const photo = seen(fileReport(page, PHOTO));
  t.true(photo.includes('Face detection was not asked for (“Find faces” was not ticked): the face count shows “no answer”, not zero.'), photo);
  t.true(photo.includes('Text detection was not asked for (“Find readable text” was not ticked): the text region count shows “no answer”, not zero.'), photo);
  t.true(photo.includes('Faces no answer'));
  for (const api of ['face_detection', 'text_detection', 'null']) t.false(photo.includes(api), `no API syntax (${api}) on the page`);
});

// Issue 27: the report in the language a person chose. The findings, their tips and the grade's
// reasons are said from their messages in that language; the convert form's words inside a tip
// are the French form's; the API's report stays English.
test('the report page in French: findings, tips and the forms’ words in French; the API stays English', async (t) => {
  t.timeout(120_000);
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key, web } = await person(svc);
  await web.get('/analyse');
  const chosen = await web.post('/language', { lang: 'fr', back: '/analyse' });
  t.is(chosen.status, 303);
  const { page, jobId } = await analyse(web, [[GPS_PHOTO, locatedPhoto()]], { forensic_depth: 'standard', face_sensitivity: 'medium', face_detection: 'true', text_detection: 'true', tips: 'true' });
  t.regex(page, /<html lang="fr"/);
  const located = seen(fileReport(page, GPS_PHOTO));
  t.true(located.includes('Position GPS enregistrée : 46.5197, 6.6323'), located);
  t.true(located.includes('Conseil : Toute personne qui a le fichier peut voir où il a été créé.'), located);
  t.true(located.includes('utilisez la page Convertir en cochant « Visages » sous « Masquer avant de convertir »'), located);
  t.false(located.includes('GPS position recorded'), 'no English finding on the French page');
  const api = await svc.api('GET', `/api/analyse/result/${jobId}`, key);
  t.true(api.body.files[0].verdicts.findings.some((f: { label: string }) => f.label.startsWith('GPS position recorded: 46.5197, 6.6323')));
});
