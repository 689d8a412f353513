// The starts of hiding and revealing: the passphrase, and for a hide the output format
// (whether it suits the cover is the runner's to say, once it has probed the cover).
import { z } from 'zod';
import { STEGO_IMAGE_FORMATS, type StegoImageFormat } from '../../media/stego/image.ts';
import { STEGO_VIDEO_FORMATS, type StegoVideoFormat } from '../../media/stego/video.ts';
import { defineStart } from '../start.ts';

const MAX_PASSPHRASE = 1024;
const REQUIRED = 'password is required: the passphrase that seals the hidden files. It cannot be empty.';

const password = z
  .string({ error: REQUIRED })
  .min(1, { error: REQUIRED })
  .max(MAX_PASSPHRASE, { error: `The passphrase is longer than ${MAX_PASSPHRASE} characters.` })
  .describe('The passphrase. A weak one is named in the job message.');
const DECOY = 'decoy_password must be a passphrase that is not empty, for the decoy files of step 3.';
const passwordCode = (issue: z.core.$ZodIssue) => (issue.code === 'too_big' ? 'invalid_password' : 'missing_password');

export interface HideStart {
  password: string;
  /** A decoy's passphrase: the files at step 3 are hidden under it, beside the secret. */
  decoy_password?: string;
  /** Absent: png for an image cover, mkv for a video one. */
  output_format?: StegoImageFormat | StegoVideoFormat;
}

export interface RevealOptions {
  password: string;
}

export const hideStart = defineStart({
  product: 'hide',
  sessionTypes: ['hide'],
  description: 'Start a hide on a hide session: step-1 files are hidden in the step-2 cover.',
  tail: '',
  shape: {
    password,
    output_format: z
      .enum([...STEGO_IMAGE_FORMATS, ...STEGO_VIDEO_FORMATS], {
        error: `output_format must be one of ${STEGO_IMAGE_FORMATS.join(', ')} for an image cover or ${STEGO_VIDEO_FORMATS.join(', ')} for a video cover (the result is lossless).`,
      })
      .nullable()
      .optional()
      .describe(`Lossless output: ${STEGO_IMAGE_FORMATS.join(', ')} for an image cover (png by default), ${STEGO_VIDEO_FORMATS.join(', ')} for a video cover (mkv by default).`),
    decoy_password: z
      .string({ error: DECOY })
      .min(1, { error: DECOY })
      .max(MAX_PASSPHRASE, { error: `The decoy passphrase is longer than ${MAX_PASSPHRASE} characters.` })
      .nullable()
      .optional()
      .describe(
        'A second passphrase, for the files uploaded at step 3 (a decoy, for when a passphrase is demanded): revealing with it gives the decoy, with password the secret, and neither shows that the other exists. The decoy at least as large as the secret (once compressed, as they are hidden); the two passphrases differ.',
      ),
  },
  codes: { password: passwordCode, output_format: 'invalid_option', decoy_password: 'invalid_password' },
  options: (f): HideStart => ({ password: f.password, ...(f.output_format ? { output_format: f.output_format } : {}), ...(f.decoy_password ? { decoy_password: f.decoy_password } : {}) }),
});

export const revealStart = defineStart({
  product: 'reveal',
  sessionTypes: ['reveal'],
  description: 'Start a reveal on a reveal session: every hidden file comes back under its name.',
  tail: '',
  shape: { password },
  codes: { password: passwordCode },
  options: (f): RevealOptions => ({ password: f.password }),
});
