// Watermarks, three ways: invisible (the open dwtDct mark of Stable Diffusion and others, read
// from the pixels), declared (rights and watermark fields, C2PA watermark statements) and
// visible (copyright or stock-agency text near the edges, from the shared OCR reading).
// watermark_flagged is true on any evidence, false only when all three parts answered and
// found none, and null otherwise, with a finding for each part that could not answer.
import { c2paOf, type C2paReading } from '../c2pa-reader.ts';
import { finding, type Detector, type DetectorResult, type Finding, type Tags, type TipMessage } from '../detector.ts';
import type { MessageId, MessageValue } from '../../../i18n/findings-format.ts';
import { visibleMarks, type VisibleMark } from '../text/marks.ts';
import { declaredMarks, type DeclaredMark } from '../watermark/declared.ts';
import { readInvisible, type InvisibleReading } from '../watermark/invisible.ts';
import { isAborted } from '../../errors.ts';

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
    const add = (severity: Finding['severity'], id: MessageId, values?: Record<string, MessageValue>, tip?: TipMessage) => findings.push(finding(NAME, severity, id, values, tip));

    // (a) invisible: still pictures only; a video's frames are re-encoded, which erases it
    let invisible: InvisibleReading | null = null;
    if (input.probe.kind === 'video') {
      add('info', 'finding.watermark.invisible_video');
    } else {
      try {
        invisible = readInvisible(await input.pixels());
      } catch {
        add('info', 'finding.watermark.invisible_undecodable');
      }
    }
    if (invisible?.mark) {
      add('medium', 'finding.watermark.invisible_found', { mark: invisible.mark, agreement: Math.round(invisible.agreement * 100) }, 'tip.watermark.invisible_found');
    } else if (invisible) {
      add('info', invisible.too_small ? 'finding.watermark.invisible_too_small' : 'finding.watermark.invisible_none');
    }

    // (b) declared
    let declared: DeclaredMark[] | null = null;
    let tags: Tags | undefined;
    try {
      tags = await input.tags();
    } catch {
      add('info', 'finding.watermark.declared_unreadable');
    }
    if (tags) {
      let c2pa: C2paReading | undefined;
      try {
        c2pa = await c2paOf(input, options);
      } catch (err) {
        if (isAborted(err)) throw err;
      }
      declared = declaredMarks(tags, c2pa);
      if (declared.length) {
        const marks = declared.slice(0, 4).map((d) => `${d.field}: ${d.value}`).join('; ');
        add('low', 'finding.watermark.declared', { marks, more: Math.max(0, declared.length - 4) }, 'tip.watermark.declared');
      } else {
        add('info', 'finding.watermark.declared_none');
      }
    }

    // (c) visible: from the shared OCR reading, when text detection runs
    let visible: VisibleMark[] | null = null;
    if (options.text && !options.text.enabled) {
      add('info', 'finding.watermark.visible_off');
    } else {
      try {
        visible = visibleMarks(await input.text());
        // the kind and the place, not the words: read text stays in verdicts only, as in the text check
        if (visible.length) add('low', 'finding.watermark.visible', { kind: visible[0].kind, where: visible[0].where, more: visible.length - 1 });
      } catch (err) {
        if (isAborted(err)) throw err;
        add('info', 'finding.watermark.visible_unreadable');
      }
    }

    const evidence = Boolean(invisible?.mark) || Boolean(declared?.length) || Boolean(visible?.length);
    const answered = invisible !== null && declared !== null && visible !== null;
    const flagged = evidence ? true : answered ? false : null;
    if (flagged === null) add('info', 'finding.watermark.unknown');
    return { verdict: { flagged, invisible, declared, visible }, findings, assets: [] };
  },
};
