// Reconciliation over every real output of ../shared/reference/peers-wild and peers-wild-2: each result a converter
// writes carries its outcome in the record (score_details.details.evalkit_reconciliation and its note), and the
// outcomes are those listed here. A result not listed must be `not_checkable` with a note naming what is missing;
// a new disagreement, a lost reconciliation or a changed note fails the test. Checked by hand against the source
// files: every promptfoo test is a row of the test pass rate beside its assertions' rows, so both counts reconcile
// with promptfoo's summaries (the Node API output's 2 tests at 0.5, the safety run's 39 tests and 312 assertions);
// the multi-scorer Inspect log's 32 samples are 8 scenarios whose 4 variants share their input, and the
// lm-eval negotiationtom samples repeat prompts: their sample_hash values name several samples, so they pair by
// sample_id (said in the note).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { referenceRoot, skipWithoutReference, wildRunFolders } from '../helpers/shared.js';
import { lineFacts, rowFacts } from '../../src/checks/reconciliation.js';
import { blockFacts } from '../helpers/row-facts.js';
import { convertInto, load } from './helpers.js';

const TOOLS = ['helm', 'inspect_ai', 'lm-eval-harness', 'openai-evals', 'promptfoo'];

/** `<source file> #<record of that file> <evaluation_result_id>` → outcome and note; every other result is not_checkable. */
const EXPECTED: [string, string, string][] = [
  [
    'peers-wild/helm/bbq-claude35sonnet-v3 #0 exact_match/test',
    'reconciled',
    'n 2 stored = 2 declared; mean 1 = headline',
  ],
  [
    'peers-wild/helm/bbq-claude35sonnet-v3 #0 exact_match@5/test',
    'reconciled',
    'n 2 stored = 2 declared; mean 1 = headline',
  ],
  [
    'peers-wild/helm/bbq-claude35sonnet-v3 #0 quasi_exact_match/test',
    'reconciled',
    'n 2 stored = 2 declared; mean 1 = headline',
  ],
  [
    'peers-wild/helm/bbq-claude35sonnet-v3 #0 quasi_exact_match@5/test',
    'reconciled',
    'n 2 stored = 2 declared; mean 1 = headline',
  ],
  [
    'peers-wild/helm/bbq-claude35sonnet-v3 #0 prefix_exact_match/test',
    'reconciled',
    'n 2 stored = 2 declared; mean 1 = headline',
  ],
  [
    'peers-wild/helm/bbq-claude35sonnet-v3 #0 prefix_exact_match@5/test',
    'reconciled',
    'n 2 stored = 2 declared; mean 1 = headline',
  ],
  [
    'peers-wild/helm/bbq-claude35sonnet-v3 #0 quasi_prefix_exact_match/test',
    'reconciled',
    'n 2 stored = 2 declared; mean 1 = headline',
  ],
  [
    'peers-wild/helm/bbq-claude35sonnet-v3 #0 quasi_prefix_exact_match@5/test',
    'reconciled',
    'n 2 stored = 2 declared; mean 1 = headline',
  ],
  [
    'peers-wild/helm/bbq-claude35sonnet-v3 #0 logprob/test',
    'reconciled',
    'n 2 stored = 2 declared; mean 0 = headline',
  ],
  [
    'peers-wild/helm/xstest-claude35sonnet-v4 #0 xst_score/test',
    'reconciled',
    'n 100 stored = 100 declared; mean 0.9675 = headline',
  ],
  [
    'peers-wild/helm/xstest-claude35sonnet-v4 #0 xst_gpt_score/test',
    'reconciled',
    'n 100 stored = 100 declared; mean 0.96 = headline',
  ],
  [
    'peers-wild/helm/xstest-claude35sonnet-v4 #0 xst_claude_score/test',
    'reconciled',
    'n 100 stored = 100 declared; mean 0.975 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 exact_match/test',
    'reconciled',
    'n 9 stored = 9 declared; mean 0.1111111111 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 exact_match@5/test',
    'reconciled',
    'n 9 stored = 9 declared; mean 0.1111111111 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 quasi_exact_match/test',
    'reconciled',
    'n 9 stored = 9 declared; mean 0.1111111111 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 quasi_exact_match@5/test',
    'reconciled',
    'n 9 stored = 9 declared; mean 0.1111111111 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 prefix_exact_match/test',
    'reconciled',
    'n 9 stored = 9 declared; mean 0.1111111111 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 prefix_exact_match@5/test',
    'reconciled',
    'n 9 stored = 9 declared; mean 0.1111111111 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 quasi_prefix_exact_match/test',
    'reconciled',
    'n 9 stored = 9 declared; mean 0.1111111111 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 quasi_prefix_exact_match@5/test',
    'reconciled',
    'n 9 stored = 9 declared; mean 0.1111111111 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 logprob/test',
    'reconciled',
    'n 9 stored = 9 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 exact_match/valid',
    'reconciled',
    'n 1 stored = 1 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 exact_match@5/valid',
    'reconciled',
    'n 1 stored = 1 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 quasi_exact_match/valid',
    'reconciled',
    'n 1 stored = 1 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 quasi_exact_match@5/valid',
    'reconciled',
    'n 1 stored = 1 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 prefix_exact_match/valid',
    'reconciled',
    'n 1 stored = 1 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 prefix_exact_match@5/valid',
    'reconciled',
    'n 1 stored = 1 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 quasi_prefix_exact_match/valid',
    'reconciled',
    'n 1 stored = 1 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 quasi_prefix_exact_match@5/valid',
    'reconciled',
    'n 1 stored = 1 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2 #0 logprob/valid',
    'reconciled',
    'n 1 stored = 1 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 rouge_1/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 0.1879881142 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 rouge_2/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 0.03542729517 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 rouge_l/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 0.09709288526 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 summarization_coverage/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 0.4678010975 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 summarization_density/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 0.6590546902 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 summarization_compression/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 1.499669299 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 summac/test',
    'reconciled',
    'n 10 stored = 10 declared; mean -0.5496402776 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 BERTScore-P/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 0.6918788433 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 BERTScore-R/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 0.7755549431 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 BERTScore-F/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 0.730778271 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 logprob/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/helm/wjkim9653__MedSumHELM__mtsamples_replicate_gpt-4.1-nano #0 mtsamples_replicate_accuracy/test',
    'reconciled',
    'n 10 stored = 10 declared; mean 3.866666667 = headline',
  ],
  [
    'peers-wild/inspect_ai/camtice-fork-two-reducers/2025-03-07T14-27-31+00-00_gsm8k_4p4gD7xv3EzhZFerNBYnmE.json #0 dollar_sign_scorer/mean/accuracy',
    'reconciled',
    'mean 0 = headline; not checked: no sample count',
  ],
  [
    'peers-wild/inspect_ai/camtice-fork-two-reducers/2025-03-07T14-27-31+00-00_gsm8k_4p4gD7xv3EzhZFerNBYnmE.json #0 dollar_sign_scorer/pass_at_1/accuracy',
    'reconciled',
    'mean 0 = headline; not checked: no sample count',
  ],
  [
    'peers-wild/inspect_ai/cdinu-grounded-tools-zstd/2026-06-30T11-12-44-00-00_civic-misinfo-grounded_3vahqniExoXv52eWg7PeRg.eval #0 model_graded_qa/accuracy',
    'reconciled',
    'n 2 stored = 2 declared; mean 1 = headline',
  ],
  [
    'peers-wild/inspect_ai/inspectai-tests-cancelled/2025-05-12T20-28-13-04-00_popularity.json #0 match/accuracy',
    'reconciled',
    'mean 0.6666666667 = headline; not checked: no sample count',
  ],
  [
    'peers-wild/inspect_ai/inspectai-tests-streaming-epochs/log_streaming.eval #0 match/accuracy',
    'reconciled',
    'mean 0.75 = headline; not checked: no sample count',
  ],
  [
    'peers-wild/inspect_ai/inspectai-tests-v3-dedup/log_message_deduplication.eval #0 closeness_log/accuracy',
    'reconciled',
    'n 1 stored = 1 declared; mean 0 = headline',
  ],
  [
    'peers-wild-2/inspect_ai/UKGovernmentBEIS__inspect_ai__popularity-cancelled/2025-05-12T20-28-13-04-00_popularity.json #0 match/accuracy',
    'reconciled',
    'mean 0.6666666667 = headline; not checked: no sample count',
  ],
  [
    'peers-wild-2/inspect_ai/carlosrymer-multiscorer-agentic/2026-08-01T15-18-34-00-00_support-desk-naive_7UyEcsb23evHpAfY9e2k5X.eval #0 task_utility/utility_rate',
    'reconciled',
    "n 32 stored = 32 declared; not checked: Inspect's utility_rate metric is not a mean of the sample scores; paired by sample_id: 32 samples share 8 sample_hash value(s)",
  ],
  [
    'peers-wild-2/inspect_ai/tidyverse__vitals__arithmetic-with-tool/2025-04-07T11-00-30-05-00_arithmetic-with-tool_gKECTBvzvzgtPqQCd3cirF.json #0 match/accuracy',
    'reconciled',
    'mean 1 = headline; not checked: no sample count',
  ],
  [
    'peers-wild/lm-eval-harness/harness-negotiationtom-qwen3/results_2026-07-08T16-04-34.219874.json #0 negotiationtom_belief/acc,none',
    'reconciled',
    'n 20 stored = 20 declared; mean 0.45 = headline; paired by sample_id: 20 samples share 15 sample_hash value(s)',
  ],
  [
    'peers-wild/lm-eval-harness/harness-negotiationtom-qwen3/results_2026-07-08T16-04-34.219874.json #0 negotiationtom_desire/acc,none',
    'reconciled',
    'n 20 stored = 20 declared; mean 0.6 = headline; paired by sample_id: 20 samples share 15 sample_hash value(s)',
  ],
  [
    'peers-wild/lm-eval-harness/harness-negotiationtom-qwen3/results_2026-07-08T16-04-34.219874.json #0 negotiationtom_intention/exact_match,none',
    'reconciled',
    'n 20 stored = 20 declared; mean 0.2 = headline',
  ],
  [
    'peers-wild/lm-eval-harness/harness-phi35-en-it/results_2024-10-11T13-58-59.572420.json #0 en_it_public/bleu_score,none',
    'reconciled',
    'n 4 stored = 4 declared; mean 0.3359118713 = headline',
  ],
  [
    'peers-wild/openai-evals/zenohub-country-area-gpt4/countries-4.jsonl #0 compare-countries-area.dev.v0/accuracy',
    'reconciled',
    'pass rate 0.34 = headline; not checked: no sample count',
  ],
  [
    'peers-wild-2/openai-evals/zeno-ml__zeno-evals__medmcqa-early-format/example.jsonl #0 medmcqa.dev.v0/accuracy',
    'reconciled',
    'pass rate 0.56 = headline; not checked: no sample count',
  ],
  [
    'peers-wild/promptfoo/hknyosu-simple-test-v2/output.json #0 test_pass_rate',
    'reconciled',
    'n 5 stored = 5 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild/promptfoo/hknyosu-simple-test-v2/output.json #0 assertion_pass_rate',
    'reconciled',
    'n 8 stored = 8 declared; pass rate 0.125 = headline',
  ],
  [
    'peers-wild/promptfoo/hknyosu-simple-test-v2/output.json #1 test_pass_rate',
    'reconciled',
    'n 5 stored = 5 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild/promptfoo/hknyosu-simple-test-v2/output.json #1 assertion_pass_rate',
    'reconciled',
    'n 8 stored = 8 declared; pass rate 0.125 = headline',
  ],
  [
    'peers-wild/promptfoo/redreamai-dialogue/promptfoo-dialogue-results.json #0 test_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild-2/promptfoo/Wadys__ai-qa-demo__ollama/results.json #0 test_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild-2/promptfoo/Wadys__ai-qa-demo__ollama/results.json #0 assertion_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild-2/promptfoo/Wadys__ai-qa-demo__ollama/results.json #1 test_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild-2/promptfoo/Wadys__ai-qa-demo__ollama/results.json #1 assertion_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__js-config-japanese/output.json #0 test_pass_rate',
    'reconciled',
    'n 4 stored = 4 declared; pass rate 1 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__js-config-japanese/output.json #1 test_pass_rate',
    'reconciled',
    'n 4 stored = 4 declared; pass rate 1 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #0 test_pass_rate',
    'reconciled',
    'n 2 stored = 2 declared; pass rate 0.5 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #0 assertion_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #1 test_pass_rate',
    'reconciled',
    'n 2 stored = 2 declared; pass rate 0.5 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #1 assertion_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #2 test_pass_rate',
    'reconciled',
    'n 2 stored = 2 declared; pass rate 0.5 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #2 assertion_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #3 test_pass_rate',
    'reconciled',
    'n 2 stored = 2 declared; pass rate 0.5 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #3 assertion_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #4 test_pass_rate',
    'reconciled',
    'n 2 stored = 2 declared; pass rate 0.5 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #4 assertion_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #5 test_pass_rate',
    'reconciled',
    'n 2 stored = 2 declared; pass rate 0.5 = headline',
  ],
  [
    'peers-wild-2/promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json #5 assertion_pass_rate',
    'reconciled',
    'n 1 stored = 1 declared; pass rate 0 = headline',
  ],
  // (reDreamAI__measure-ai-drift__all-errors-ratelimit: every test errored, so no pass rate is written: issue 40)
  [
    'peers-wild-2/promptfoo/suhaasnv-voyageai-safety/promptfoo-results.json #0 test_pass_rate',
    'reconciled',
    'n 39 stored = 39 declared; pass rate 1 = headline',
  ],
  [
    'peers-wild-2/promptfoo/suhaasnv-voyageai-safety/promptfoo-results.json #0 assertion_pass_rate',
    'reconciled',
    'n 312 stored = 312 declared; pass rate 1 = headline',
  ],
  [
    'peers-wild-2/promptfoo/suhaasnv-voyageai-safety/promptfoo-results.json #1 test_pass_rate',
    'reconciled',
    'n 39 stored = 39 declared; pass rate 1 = headline',
  ],
  [
    'peers-wild-2/promptfoo/suhaasnv-voyageai-safety/promptfoo-results.json #1 assertion_pass_rate',
    'reconciled',
    'n 312 stored = 312 declared; pass rate 1 = headline',
  ],
];

test(
  'every result of every peer file reconciles, or carries a named reason (the list above)',
  { skip: skipWithoutReference('peers-wild-2/MANIFEST.tsv') },
  async () => {
    const actual: [string, string, string][] = [];
    let results = 0;
    for (const tool of TOOLS)
      for (const folder of wildRunFolders(tool)) {
        const converted = await convertInto([folder]);
        assert.deepEqual(
          converted.failures.map((f) => f.error.message),
          [],
          folder,
        );
        const seen = new Map<string, number>();
        for (const { record, outcome } of converted.written) {
          const file = relative(referenceRoot, record.sourcePath);
          const i = seen.get(file) ?? 0;
          seen.set(file, i + 1);
          const { aggregate } = load(converted.root, record);
          // The writer reads each row's facts from its text; they are what parsing the row gives.
          if (record.samplesPath) {
            const bytes = readFileSync(join(converted.root, record.samplesPath));
            const lines = bytes
              .toString('utf8')
              .split('\n')
              .filter((line) => line !== '');
            for (const line of lines)
              assert.deepEqual(lineFacts(line), rowFacts(JSON.parse(line)), line.slice(0, 200));
            // And from the file's bytes as a block, as the writer tallies them.
            assert.deepEqual(
              blockFacts(bytes),
              lines.map((line) => rowFacts(JSON.parse(line))),
            );
          }
          aggregate.evaluation_results.forEach((result: any, k: number) => {
            results++;
            const details = result.score_details.details;
            const stored = [details.evalkit_reconciliation, details.evalkit_reconciliation_note];
            // What the writer reports is what it stored.
            assert.deepEqual([outcome.reconciliation[k].outcome, outcome.reconciliation[k].note], stored);
            const key = `${file} #${i} ${result.evaluation_result_id}`;
            if (stored[0] === 'not_checkable')
              assert.match(
                stored[1],
                /^(no instance rows for this result|the source declares nothing to check against: .+)/,
                key,
              );
            else actual.push([key, stored[0], stored[1]]);
          });
        }
      }
    assert.ok(results > 800, `${results} results`);
    assert.deepEqual(actual, EXPECTED);
  },
);
