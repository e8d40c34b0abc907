// Type-checked (never run) by tests/types.test.mjs under each moduleResolution: the matcher is
// typed for a Page or a Locator with toHaveScreenshot's option names.
import { test, expect } from 'sightline/playwright';
import type { ResolvedSettings, SightlineConfig, ToMatchVisualOptions } from 'sightline/playwright';

const options: ToMatchVisualOptions = {
  animations: 'disabled',
  caret: 'hide',
  scale: 'css',
  omitBackground: false,
  maskColor: '#FF00FF',
  stylePath: ['hide.css'],
  clip: { x: 0, y: 0, width: 10, height: 10 },
  fullPage: true,
  threshold: 0.2,
  maxDiffPixels: 10,
  maxDiffPixelRatio: 0.01,
  timeout: 5000,
};

// `.sightline/config.json`, typed from the same declaration: its own keys, selectors only.
const config: SightlineConfig = { reportDir: 'visual-report', mask: ['.clock'], shardMode: 'capture-only', baselinePath: '{name}/{project}' };
// @ts-expect-error clip is a call's option, not the config file's
const noClip: SightlineConfig = { clip: { x: 0, y: 0, width: 1, height: 1 } };
const resolved: Pick<ResolvedSettings, 'threshold' | 'styleProperties'> = { threshold: 0.1, styleProperties: ['color'] };
void [config, noClip, resolved];

test('typed', async ({ page }) => {
  await expect(page).toMatchVisual();
  await expect(page).toMatchVisual('home', options);
  await expect(page).toMatchVisual('home', { signal: AbortSignal.timeout(1000), maxDiffPixels: 5 });
  await expect(page).toMatchVisual(['cards', 'lamp.png']);
  await expect(page).toMatchVisual({ name: 'home', mask: [page.locator('#ad'), '.clock'] });
  await expect(page.locator('#card')).toMatchVisual('card');
  await expect(page).not.toMatchVisual('other');
  await expect.soft(page).toMatchVisual('soft');
  // @ts-expect-error the matcher takes a Page or a Locator, not a screenshot buffer
  await expect(new Uint8Array(0)).toMatchVisual();
  // @ts-expect-error an option toHaveScreenshot does not have
  await expect(page).toMatchVisual('home', { colour: 'red' });
  // @ts-expect-error animations is 'disabled' or 'allow'
  await expect(page).toMatchVisual('home', { animations: 'paused' });
});
