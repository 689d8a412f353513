import type { SettingsRepository } from './ports.ts';

// On when the configuration says so, or when an operator turned it on with the CLI
// (which the running service sees on its next request, without a restart).
export class Maintenance {
  readonly #settings: SettingsRepository;
  readonly #fromConfig: boolean;
  readonly retryAfterS: number;

  constructor(settings: SettingsRepository, fromConfig: boolean, retryAfterS: number) {
    this.#settings = settings;
    this.#fromConfig = fromConfig;
    this.retryAfterS = retryAfterS;
  }

  async isOn(): Promise<boolean> {
    return this.#fromConfig || (await this.#settings.get('maintenance')) === 'on';
  }

  async set(on: boolean): Promise<void> {
    if (on) await this.#settings.set('maintenance', 'on');
    else await this.#settings.delete('maintenance');
  }
}
