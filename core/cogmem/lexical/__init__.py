"""Lexical recall: a tokenizer and an incremental BM25 (Okapi) index.

Tokenizing and scoring are kept apart, as in ``rank_bm25`` and ``bm25s``: a :class:`Tokenizer`
turns text into tokens (:mod:`~cogmem.lexical.tokenizer`), and a :class:`BM25Index` scores
already-tokenized documents (:mod:`~cogmem.lexical.index`), one module per concern:

* :mod:`~cogmem.lexical.okapi`: the formulas, one small function each;
* :mod:`~cogmem.lexical.postings`: the packed postings and their CSR helpers;
* :mod:`~cogmem.lexical.search`: scoring queries, the best matches, ranked chunks;
* :mod:`~cogmem.lexical.topk`: the best ``k`` of a large index without summing every match;
* :mod:`~cogmem.lexical.persistence`: saving and loading, checked.

Scores equal ``rank_bm25.BM25Okapi(corpus, k1=k1, b=b, epsilon=ε).get_scores(query)`` on the live
documents, bit for bit but for the rounding of the mean idf. Two rank_bm25 details are kept on
purpose: an idf of exactly 0 (``n(q) = N / 2``) is not floored, and the floor can be negative.
One is not: where rank_bm25 computes ``0 / 0 = NaN`` for a document lacking a query term
(``k1 = 0``, or ``b = 1`` and an empty document), that term adds 0 here. A document *matches*
when it holds at least one query term, whatever its score.
"""

from .index import BM25Index
from .persistence import INDEX_FORMAT_VERSION
from .tokenizer import STOPWORDS_EN, Tokenizer, word_spans

__all__ = ["INDEX_FORMAT_VERSION", "STOPWORDS_EN", "BM25Index", "Tokenizer", "word_spans"]
