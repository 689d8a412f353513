import type { SettingsRepository } from '../store/repositories.ts';

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

  isOn(): boolean {
    return this.#fromConfig || this.#settings.get('maintenance') === 'on';
  }

  set(on: boolean): void {
    if (on) this.#settings.set('maintenance', 'on');
    else this.#settings.delete('maintenance');
  }
}
