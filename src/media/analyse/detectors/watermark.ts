// Watermarks, three ways: invisible (the open dwtDct mark of Stable Diffusion and others, read
// from the pixels), declared (rights and watermark fields, C2PA watermark statements) and
// visible (copyright or stock-agency text near the edges, from the shared OCR reading).
// watermark_flagged is true on any evidence, false only when all three parts answered and
// found none, and null otherwise, with a finding for each part that could not answer.
import { c2paOf, type C2paReading } from '../c2pa-reader.ts';
import type { Detector, DetectorResult, Finding, Tags } from '../detector.ts';
import { visibleMarks, type VisibleMark } from '../text/marks.ts';
import { declaredMarks, type DeclaredMark } from '../watermark/declared.ts';
import { readInvisible, type InvisibleReading } from '../watermark/invisible.ts';

export interface WatermarkVerdict {
  flagged: boolean | null;
  /** null: not checked (a finding says why). */
  invisible: InvisibleReading | null;
  declared: DeclaredMark[] | null;
  visible: VisibleMark[] | null;
}

const NAME = 'watermark';

export const watermarkDetector: Detector<WatermarkVerdict> = {
  name: NAME,
  verdictOrder: 90,
  async run(input, options): Promise<DetectorResult<WatermarkVerdict>> {
    const findings: Finding[] = [];
    const add = (severity: Finding['severity'], label: string, tip?: string) => findings.push({ detector: NAME, severity, label, ...(tip ? { tip } : {}) });

    // (a) invisible: still pictures only; a video's frames are re-encoded, which erases it
    let invisible: InvisibleReading | null = null;
    if (input.probe.kind === 'video') {
      add('info', 'Invisible watermarks were not checked: the check reads still pictures only.');
    } else {
      try {
        invisible = readInvisible(await input.pixels());
      } catch {
        add('info', 'Invisible watermarks could not be checked: the picture could not be decoded.');
      }
    }
    if (invisible?.mark) {
      add('medium', `Invisible watermark found: the mark of ${invisible.mark} (${Math.round(invisible.agreement * 100)}% of its bits read right). The picture was most likely made by that generator.`, 'This open watermark is embedded by image generators; it survives saving as PNG but not most resizing or JPEG re-encoding.');
    } else if (invisible) {
      add('info', invisible.too_small ? 'No invisible watermark: the picture is smaller than the known generator marks need (256x256).' : 'No known invisible watermark (of Stable Diffusion 1.x, 2.x or XL) was found.');
    }

    // (b) declared
    let declared: DeclaredMark[] | null = null;
    let tags: Tags | undefined;
    try {
      tags = await input.tags();
    } catch {
      add('info', 'Declared watermarks could not be checked: the metadata could not be read.');
    }
    if (tags) {
      let c2pa: C2paReading | undefined;
      try {
        c2pa = await c2paOf(input, options);
      } catch (err) {
        if ((err as { code?: string }).code === 'aborted') throw err;
      }
      declared = declaredMarks(tags, c2pa);
      if (declared.length) {
        const list = declared.slice(0, 4).map((d) => `${d.field}: ${d.value}`).join('; ') + (declared.length > 4 ? `; and ${declared.length - 4} more` : '');
        add('low', `The file declares rights or a watermark (${list}).`, 'A rights notice says the picture belongs to someone; it is not a sign of editing.');
      } else {
        add('info', 'No rights notice or watermark is declared in the metadata.');
      }
    }

    // (c) visible: from the shared OCR reading, when text detection runs
    let visible: VisibleMark[] | null = null;
    if (options.text && !options.text.enabled) {
      add('info', 'Visible watermarks were not checked: text detection was not asked for.');
    } else {
      try {
        visible = visibleMarks(await input.text());
        // the kind and the place, not the words: read text stays in verdicts only, as in the text check
        if (visible.length) add('low', `A visible ${visible[0].kind === 'stock_agency' ? 'stock-agency' : 'copyright'} mark is written near the ${visible[0].where} of the picture${visible.length > 1 ? ` (and ${visible.length - 1} more)` : ''}.`);
      } catch (err) {
        if ((err as { code?: string }).code === 'aborted') throw err;
        add('info', 'Visible watermarks could not be checked: the text could not be read.');
      }
    }

    const evidence = Boolean(invisible?.mark) || Boolean(declared?.length) || Boolean(visible?.length);
    const answered = invisible !== null && declared !== null && visible !== null;
    const flagged = evidence ? true : answered ? false : null;
    if (flagged === null) add('info', 'Whether the file carries a watermark is not known: part of the check could not answer (see above); this is not a clean result.');
    return { verdict: { flagged, invisible, declared, visible }, findings, assets: [] };
  },
};
