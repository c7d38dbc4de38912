fn main() {
    std::process::exit(sharebench::cli::main());
}
