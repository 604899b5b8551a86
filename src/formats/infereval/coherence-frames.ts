/**
 * The coherence frames: versioned system prompts of the coherence question form, the same three the infereval
 * reference ships (`templates.py`), byte for byte, because a frame id names an instrument: an evaluation that
 * records `coherence_frame_id` was elicited under exactly that text. A frame sets only the system prompt (and the
 * survey header that states the same norms to people); the question line, the labels, the parse regex and the
 * decoding (INCOHERENT → good, COHERENT → bad, UNCLEAR → abstain) are the same under every frame, so no frame can
 * invert verdicts.
 */
import { UsageError } from '../../errors.js';

export interface CoherenceFrame {
  id: string;
  system: string;
  /** The frame's instruction to human respondents (a survey header). */
  surveyHeader: string;
  /** One line for `--help` and docs. */
  summary: string;
}

export const THIN_COHERENCE_FRAME: CoherenceFrame = {
  id: 'thin-v1',
  summary: 'the label contract with no material norms (the default)',
  system:
    'You are judging the coherence of a position in everyday reasoning. A position commits to some claims and may deny others. Answer with exactly one of: COHERENT, INCOHERENT, UNCLEAR. No other text.\n\nCOHERENT means the whole position can be held together without conflict.\nINCOHERENT means the position is untenable — its commitments and denials conflict (for a position that only commits and denies nothing, INCOHERENT means those claims cannot all hold together).\nUNCLEAR means the question is ill-formed or you cannot judge.',
  surveyHeader:
    'Consider the position described below. Could this whole position be held at once without conflict, or is it untenable?',
};

export const DEFEASIBLE_COHERENCE_FRAME: CoherenceFrame = {
  id: 'defeasible-coherence-explicit-v1',
  summary: 'material (defeasible) coherence, with the bird/penguin exemplar',
  system:
    'You are judging whether a position is coherent in everyday defeasible reasoning. A position commits to some claims and may deny others.\n\nThis is NOT a question of strict logical consistency. It is a question of material coherence: granting the commitments as stated, with typical background conditions and standard kinds, can the whole position be held together in the ordinary course of things?\n\nAnswer with exactly one of: COHERENT, INCOHERENT, UNCLEAR. No other text.\n\nCOHERENT means the whole position can be held together under default conditions — including when a commitment defeats what would otherwise ordinarily follow.\nINCOHERENT means the position is untenable: it denies something its commitments would ordinarily settle, or its commitments cannot all hold together in the ordinary course of things. A strict logical contradiction is not required.\nUNCLEAR means the question is ill-formed or you cannot judge.\n\nFor example:\n  Consider a position that commits to the following: a is a bird; and denies: a can fly.\n  Verdict: INCOHERENT  (typical birds fly; absent further information, the denial clashes with what the commitment ordinarily settles)\n\n  Consider a position that commits to the following: a is a bird and a is a penguin; and denies: a can fly.\n  Verdict: COHERENT  (the second commitment is a defeater; the position holds together)',
  surveyHeader:
    'Consider the position described below. A position commits to some claims and may deny others. This is not a question about strict logical contradiction: judge whether the whole position can be held together in the ordinary course of things, granting its commitments as stated and assuming typical circumstances and standard kinds of things. A position is untenable when it denies something its commitments would ordinarily settle, even without a strict contradiction, or when its commitments cannot all hold together in the ordinary course of things; it can be held together when its commitments leave room for what it denies — including when one commitment defeats what would otherwise ordinarily follow.\n\nFor example: a position that commits to "a is a bird" and denies "a can fly" is untenable in the ordinary course of things (typical birds fly). A position that commits to "a is a bird and a is a penguin" and denies "a can fly" can be held together (penguins are birds that do not fly, so the denial fits).\n\nCould this whole position be held at once without conflict, is it untenable, or can you not judge?',
};

export const UNDERDET_COHERENCE_FRAME: CoherenceFrame = {
  id: 'defeasible-coherence-underdet-v1',
  summary: 'the defeasible frame with an underdetermination clause for UNCLEAR (experimental)',
  system:
    'You are judging whether a position is coherent in everyday defeasible reasoning. A position commits to some claims and may deny others.\n\nThis is NOT a question of strict logical consistency. It is a question of material coherence: granting the commitments as stated, with typical background conditions and standard kinds, can the whole position be held together in the ordinary course of things?\n\nAnswer with exactly one of: COHERENT, INCOHERENT, UNCLEAR. No other text.\n\nCOHERENT means the whole position can be held together under default conditions — including when a commitment defeats what would otherwise ordinarily follow.\nINCOHERENT means the position is untenable: it denies something its commitments would ordinarily settle, or its commitments cannot all hold together in the ordinary course of things. A strict logical contradiction is not required.\nUNCLEAR means the question is ill-formed or you cannot judge — or the matter is genuinely underdetermined: the commitments bear on what the position denies but neither ordinarily settle it nor defeat it, so competent reasoners could disagree about whether the position holds together.\n\nFor example:\n  Consider a position that commits to the following: a is a bird; and denies: a can fly.\n  Verdict: INCOHERENT  (typical birds fly; absent further information, the denial clashes with what the commitment ordinarily settles)\n\n  Consider a position that commits to the following: a is a bird and a is a penguin; and denies: a can fly.\n  Verdict: COHERENT  (the second commitment is a defeater; the position holds together)\n\n  Consider a position that commits to the following: a is a bird and a is unusually heavy for its kind; and denies: a can fly.\n  Verdict: UNCLEAR  (the commitments pull in different directions without settling the matter; competent reasoners could disagree)',
  surveyHeader:
    'Consider the position described below. A position commits to some claims and may deny others. This is not a question about strict logical contradiction: judge whether the whole position can be held together in the ordinary course of things, granting its commitments as stated and assuming typical circumstances and standard kinds of things. A position is untenable when it denies something its commitments would ordinarily settle, even without a strict contradiction, or when its commitments cannot all hold together in the ordinary course of things; it can be held together when its commitments leave room for what it denies — including when one commitment defeats what would otherwise ordinarily follow. If the commitments bear on what the position denies but neither ordinarily settle it nor override it — so that competent judges could reasonably disagree — treat it as a case you cannot settle either way.\n\nFor example: a position that commits to "a is a bird" and denies "a can fly" is untenable in the ordinary course of things (typical birds fly). A position that commits to "a is a bird and a is a penguin" and denies "a can fly" can be held together (penguins are birds that do not fly, so the denial fits). A position that commits to "a is a bird and a is unusually heavy for its kind" and denies "a can fly" is one where competent judges could reasonably disagree (a case you could not settle either way).\n\nCould this whole position be held at once without conflict, is it untenable, or is this a case you cannot settle either way?',
};

export const BUILTIN_COHERENCE_FRAMES: readonly CoherenceFrame[] = [
  THIN_COHERENCE_FRAME,
  DEFEASIBLE_COHERENCE_FRAME,
  UNDERDET_COHERENCE_FRAME,
];

/** The built-in frame with this id; an unknown id is a UsageError (never a silent fall-back to thin-v1). */
export function coherenceFrame(id: string): CoherenceFrame {
  const frame = BUILTIN_COHERENCE_FRAMES.find((f) => f.id === id);
  if (!frame) {
    throw new UsageError(
      'run.coherence-frame',
      `unknown coherence frame "${id}" (built-in: ${BUILTIN_COHERENCE_FRAMES.map((f) => f.id).join(', ')})`,
    );
  }
  return frame;
}
