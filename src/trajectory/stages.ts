// A flight's stages and, per kind of stage, its rule: how fast the balloon climbs, and where the
// stage ends — kept together, as Tawhiri pairs each model with its terminator. The solver knows
// only this table.
import { descentRate, nasaDensity } from './models.js'

export type Stage =
  | { kind: 'ascent', rate: number, altitude: number }
  | { kind: 'descent', seaLevelRate: number, modelDensity: boolean }
  | { kind: 'float', stop: number }
  /** An ascent flown back in time (reverse_profile, solved with a negative step) down to the ground. */
  | { kind: 'reverse', rate: number }

export type StageName = Stage['kind']

export interface StageRule<S extends Stage> {
  /** dalt/dt (m/s) at an evaluation of the air there (its altitude, the air's density). */
  climb: (stage: S, altitude: number, density: number) => number
  /**
   * Where the step from (t0, alt0) to (t0 + step, alt1) reaches the stage's end, as a fraction of
   * the step (then refined by linear interpolation), or −1 while it goes on.
   */
  crossing: (stage: S, t0: number, alt0: number, alt1: number, step: number) => number
  /** The altitude the end lies at exactly, when the stage ends at one. */
  endAltitude?: (stage: S) => number
  /**
   * The stage ends where the flight meets the ground, found at the next evaluation (the ground is
   * the model terrain under the new state): its steps wait for that check before being recorded.
   */
  endsOnGround: boolean
  /**
   * Starting at or below the model ground, the stage ends where it is, at once, and the flight has
   * landed (docs/DESIGN.md §9): a descent or float cannot begin underground.
   */
  landsIfStartedBelowGround: boolean
  /** The stage is over as it starts (a float whose stop time has come already). */
  overAt: (stage: S, t: number) => boolean
}

type Rules = { [K in StageName]: StageRule<Extract<Stage, { kind: K }>> }

export const STAGE_RULES: Rules = {
  ascent: {
    climb: (stage) => stage.rate,
    crossing: (stage, _t0, alt0, alt1) => alt1 >= stage.altitude ? (stage.altitude - alt0) / (alt1 - alt0) : -1,
    endAltitude: (stage) => stage.altitude,
    endsOnGround: false,
    landsIfStartedBelowGround: false,
    overAt: () => false
  },
  float: {
    climb: () => 0,
    crossing: (stage, t0, _alt0, _alt1, step) => t0 + step >= stage.stop ? (stage.stop - t0) / step : -1,
    endsOnGround: false,
    landsIfStartedBelowGround: true,
    overAt: (stage, t) => t >= stage.stop
  },
  reverse: {
    // dalt/dt is the ascent's own: stepped back in time, the altitude falls to where it left the ground
    climb: (stage) => stage.rate,
    crossing: () => -1,
    endsOnGround: true,
    landsIfStartedBelowGround: false,
    overAt: () => false
  },
  descent: {
    climb: (stage, altitude, density) =>
      descentRate(stage.seaLevelRate, stage.modelDensity ? density : nasaDensity(altitude)),
    crossing: () => -1,
    endsOnGround: true,
    landsIfStartedBelowGround: true,
    overAt: () => false
  }
}

/** The rule of a stage, typed for it. */
export function ruleOf<S extends Stage> (stage: S): StageRule<S> {
  return STAGE_RULES[stage.kind] as unknown as StageRule<S>
}
