"""Plain-Python reference policies that follow the user protocol
(:mod:`bandits.algorithms.protocol`). They are slow on purpose: they transcribe
the paper literally and serve as independent checks of the compiled kernels, and
as worked examples of the protocol (``ReferenceAdaILTCBPlus`` plays a whole trial at once, as
the library's class does)."""

from bandits.reference.ada_iltcb_plus import ReferenceAdaILTCBPlus
from bandits.reference.adswitch import ReferenceAdSwitch
from bandits.reference.cusum_ucb import ReferenceCUSUMUCB, ReferencePHTUCB
from bandits.reference.d_lints import ReferenceDLinTS
from bandits.reference.d_linucb import ReferenceDLinUCB
from bandits.reference.d_randlinucb import ReferenceDRandLinUCB
from bandits.reference.d_ucb import ReferenceDUCB
from bandits.reference.discounted_ts import ReferenceDiscountedTS
from bandits.reference.ds_ts import ReferenceDSTS
from bandits.reference.glr_klucb import ReferenceGLRklUCB
from bandits.reference.kl_ucb import ReferenceKLUCB
from bandits.reference.lb_sda import ReferenceSWLBSDA
from bandits.reference.linear_sw_ucb import ReferenceSWUCB
from bandits.reference.m_ucb import ReferenceMUCB
from bandits.reference.master_ctx import ReferenceMasterCtx
from bandits.reference.master_iltcb import ReferenceMasterILTCB
from bandits.reference.master_oful import ReferenceMasterOFUL
from bandits.reference.master_ucb import ReferenceMasterUCB
from bandits.reference.oracle_restart_ucb import ReferenceOracleRestartUCB
from bandits.reference.restart_linucb import ReferenceRestartLinUCB
from bandits.reference.sw_ts import ReferenceSWTS
from bandits.reference.sw_ucb_gm import ReferenceSWUCBGM
from bandits.reference.thompson import ReferenceThompson
from bandits.reference.ucb1 import ReferenceUCB1

__all__ = [
    "ReferenceAdaILTCBPlus",
    "ReferenceAdSwitch",
    "ReferenceCUSUMUCB",
    "ReferencePHTUCB",
    "ReferenceDLinTS",
    "ReferenceDLinUCB",
    "ReferenceDRandLinUCB",
    "ReferenceDUCB",
    "ReferenceDSTS",
    "ReferenceDiscountedTS",
    "ReferenceGLRklUCB",
    "ReferenceKLUCB",
    "ReferenceMUCB",
    "ReferenceMasterCtx",
    "ReferenceMasterILTCB",
    "ReferenceMasterOFUL",
    "ReferenceMasterUCB",
    "ReferenceOracleRestartUCB",
    "ReferenceRestartLinUCB",
    "ReferenceSWLBSDA",
    "ReferenceSWTS",
    "ReferenceSWUCB",
    "ReferenceSWUCBGM",
    "ReferenceThompson",
    "ReferenceUCB1",
]
