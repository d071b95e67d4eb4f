// Entry points of the modes. Each takes the words after the mode name and
// returns the process exit status (failures exit directly through fail()).
#pragma once

namespace wl {

int run_make_dataset(int argc, char** argv);
int run_dl(int argc, char** argv);
int run_known(int argc, char** argv);
int run_known_exec_child(int argc, char** argv);
int run_pread_loop(int argc, char** argv);
int run_turn_read(int argc, char** argv);
int run_attach_target(int argc, char** argv);
int run_make_file(int argc, char** argv);
int run_evict(int argc, char** argv);
int run_residency(int argc, char** argv);
int run_seq_read(int argc, char** argv);
int run_reverse_aio_read(int argc, char** argv);
int run_mmap_scan(int argc, char** argv);
int run_random_read(int argc, char** argv);
int run_head_read(int argc, char** argv);
int run_write_file(int argc, char** argv);
int run_exit_code(int argc, char** argv);
int run_kill_self(int argc, char** argv);
int run_ranks(int argc, char** argv);
int run_rank(int argc, char** argv);
int run_stall(int argc, char** argv);
int run_checkpoint(int argc, char** argv);
int run_small_random(int argc, char** argv);
int run_copy(int argc, char** argv);
int run_aio(int argc, char** argv);
int run_uring(int argc, char** argv);

}  // namespace wl
